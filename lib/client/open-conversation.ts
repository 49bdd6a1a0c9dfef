import { textOf, type ChatUIMessage } from "./chat-turns";
import { titleFromText } from "./conversation-store";

/**
 * Which conversation is open: named in the address (`/?c=<id>`, so it has its own URL and Back and
 * Forward move between conversations), else the one open last in this browser; and what a saved
 * conversation's title and dates become as its messages change.
 */

const URL_PARAM = "c";

/** The key that remembers the account's open conversation in this browser (local storage). */
export function openPointerKey(accountId: string): string {
  return `lwc:open-conversation:${accountId}`;
}

/** The conversation an address names, or null. */
export function conversationIdIn(search: string): string | null {
  return new URLSearchParams(search).get(URL_PARAM);
}

/** The address showing a saved conversation (`?c=<id>`), or a new chat (no `c`); other query parameters stay. */
export function addressShowing(href: string, id: string | null): string {
  const url = new URL(href);
  if (id) url.searchParams.set(URL_PARAM, id);
  else url.searchParams.delete(URL_PARAM);
  return url.href;
}

/** What the open conversation keeps besides its messages. */
export interface ConversationMeta {
  createdAt: number;
  title: string;
  titleEdited: boolean;
}

function titleFor(messages: readonly ChatUIMessage[]): string {
  const first = messages.find((message) => message.role === "user");
  return titleFromText(first ? textOf(first) : "");
}

/**
 * The meta to save with these messages: a new conversation starts `now`; the title follows the
 * first question until the person renames it.
 */
export function metaForSave(meta: ConversationMeta | null, messages: readonly ChatUIMessage[], now: number): ConversationMeta {
  const base = meta ?? { createdAt: now, title: titleFor(messages), titleEdited: false };
  return { ...base, title: base.titleEdited ? base.title : titleFor(messages) };
}
