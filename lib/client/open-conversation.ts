import { isFailedMessage, textOf, type ChatUIMessage } from "./chat-turns";
import { titleFromText, type Conversation } from "./conversation-store";

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
export type ConversationMeta = Pick<Conversation, "createdAt" | "title" | "titleEdited" | "pinned" | "archived">;

function titleFor(messages: readonly ChatUIMessage[]): string {
  const first = messages.find((message) => message.role === "user");
  return titleFromText(first ? textOf(first) : "");
}

/** The conversation has an answer (a failed turn's partial answer does not count). */
export function hasAnswer(messages: readonly ChatUIMessage[]): boolean {
  return messages.some((message) => message.role === "assistant" && !isFailedMessage(message));
}

/**
 * The meta to save with these messages: a new conversation starts `now`, neither pinned nor
 * archived; the title follows the first question until it has an answer (then a title may be
 * generated for it, here or on another device, and it stays) or the person renames it.
 */
export function metaForSave(meta: ConversationMeta | null, messages: readonly ChatUIMessage[], now: number): ConversationMeta {
  if (!meta) return { createdAt: now, title: titleFor(messages), titleEdited: false, pinned: false, archived: false };
  if (meta.titleEdited || hasAnswer(messages)) return meta;
  return { ...meta, title: titleFor(messages) };
}
