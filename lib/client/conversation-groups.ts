import type { ConversationSummary } from "./conversation-store";

/**
 * The conversation list in sections, as ChatGPT shows it: Pinned first, then by when each was last
 * active (Today, Yesterday, Previous 7 days, Previous 30 days, then one section per month), newest
 * first in each; archived conversations apart. Days are the browser's calendar days, so "Yesterday"
 * starts at midnight. `now` is passed in, so a test can hold the clock.
 */

interface ConversationGroup {
  /** Stable across renders: `pinned`, `today`, `yesterday`, `week`, `month`, or `YYYY-MM`. */
  key: string;
  label: string;
  conversations: ConversationSummary[];
}

interface GroupedConversations {
  groups: ConversationGroup[];
  /** Newest first. */
  archived: ConversationSummary[];
}

const RECENT_GROUPS = [
  { key: "today", label: "Today", days: 0 },
  { key: "yesterday", label: "Yesterday", days: 1 },
  { key: "week", label: "Previous 7 days", days: 7 },
  { key: "month", label: "Previous 30 days", days: 30 },
] as const;

/** Local midnight `days` calendar days before the day of `now` (a daylight-saving day is 23 or 25 hours). */
function startOfDay(now: number, days: number): number {
  const date = new Date(now);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() - days).getTime();
}

function monthKey(time: number): string {
  const date = new Date(time);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}`;
}

/** "March" in the current year, "March 2025" in another. */
function monthLabel(time: number, now: number, locale: string | undefined): string {
  const date = new Date(time);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return date.toLocaleDateString(locale, sameYear ? { month: "long" } : { month: "long", year: "numeric" });
}

/** The list's sections, in order, empty ones left out. `locale` names the months (default: the browser's). */
export function groupConversations(conversations: readonly ConversationSummary[], now: number, locale?: string): GroupedConversations {
  const newestFirst = [...conversations].sort((a, b) => b.updatedAt - a.updatedAt);
  const archived = newestFirst.filter((conversation) => conversation.archived);
  const pinned = newestFirst.filter((conversation) => conversation.pinned && !conversation.archived);
  const groups: ConversationGroup[] = pinned.length > 0 ? [{ key: "pinned", label: "Pinned", conversations: pinned }] : [];
  const boundaries = RECENT_GROUPS.map((group) => ({ ...group, from: startOfDay(now, group.days) }));
  for (const conversation of newestFirst) {
    if (conversation.pinned || conversation.archived) continue;
    // A time after `now` (another device's clock running ahead) counts as today.
    const recent = boundaries.find((group) => conversation.updatedAt >= group.from);
    const key = recent?.key ?? monthKey(conversation.updatedAt);
    let group = groups.at(-1);
    if (group?.key !== key) {
      group = { key, label: recent?.label ?? monthLabel(conversation.updatedAt, now, locale), conversations: [] };
      groups.push(group);
    }
    group.conversations.push(conversation);
  }
  return { groups, archived };
}
