/**
 * What this browser still has to send to the server, kept in IndexedDB (so it survives a closed
 * tab and waits out being offline): one entry per conversation, message or delete. An entry names
 * what changed, not its content: the push reads the content as it is then, so a message written
 * ten times while offline goes up once, with its latest rev. The server ignores a resend (`rev`).
 */

export type OutboxEntry =
  | { kind: "conversation"; conversationId: string }
  | { kind: "message"; conversationId: string; messageId: string }
  | { kind: "delete-conversation"; conversationId: string }
  | { kind: "delete-message"; conversationId: string; messageId: string };

/** An entry as kept: `order` grows with each write, so an entry written again while its push was on the way stays queued. */
export interface OutboxRow {
  accountId: string;
  key: string;
  entry: OutboxEntry;
  order: number;
}

const SEPARATOR = "\u0000";

/**
 * The entry's key: the conversation's id first, so a conversation's entries sit together (its
 * delete drops them in one range); a message's write and its delete share one key, so the later
 * wins.
 */
export function outboxKey(entry: OutboxEntry): string {
  switch (entry.kind) {
    case "conversation":
      return `${entry.conversationId}${SEPARATOR}c`;
    case "delete-conversation":
      return `${entry.conversationId}${SEPARATOR}d`;
    case "message":
    case "delete-message":
      return `${entry.conversationId}${SEPARATOR}m${SEPARATOR}${entry.messageId}`;
  }
}

/** The key range of every entry of one conversation. */
export function conversationKeyRange(conversationId: string): [string, string] {
  return [`${conversationId}${SEPARATOR}`, `${conversationId}${SEPARATOR}\uffff`];
}

let lastOrder = 0;

/** A number larger than every one this tab gave before (tabs share the outbox: the time keeps them apart). */
export function nextOrder(now = Date.now()): number {
  lastOrder = Math.max(lastOrder + 1, now * 1000);
  return lastOrder;
}

/** The entries a saved change queues: the conversation's fields, each message written, each message deleted. */
export function entriesForSave(conversationId: string, changes: { messages: readonly string[]; deletedMessages: readonly string[]; conversation: boolean }): OutboxEntry[] {
  return [
    ...(changes.conversation ? [{ kind: "conversation" as const, conversationId }] : []),
    ...changes.deletedMessages.map((messageId) => ({ kind: "delete-message" as const, conversationId, messageId })),
    ...changes.messages.map((messageId) => ({ kind: "message" as const, conversationId, messageId })),
  ];
}
