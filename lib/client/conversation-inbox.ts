import type { ChatUIMessage } from "./chat-turns";
import type { MessageTree } from "./message-tree";

/** Something asked of a conversation from outside it. */
export type ConversationCommand =
  /** Add these messages at the end (a finished voice call's transcript). */
  | { type: "append"; messages: ChatUIMessage[] }
  /** Scroll to this message and mark it (a search result); null takes the mark away. */
  | { type: "show-message"; messageId: string | null }
  /** Another tab or device changed the kept conversation: its messages as kept now. */
  | { type: "remote"; tree: MessageTree };

/**
 * Commands for the conversations, from the screen around them: each waits for its conversation to
 * be on screen, which takes it once. (A conversation being opened is read from storage first, so a
 * search result's command is posted before the conversation that takes it exists.)
 */
export interface ConversationInbox {
  post(conversationId: string, command: ConversationCommand): void;
  /** The commands waiting for a conversation, oldest first; they are forgotten here. */
  take(conversationId: string): ConversationCommand[];
  /** Calls `listener` after each post; returns the way to stop. */
  subscribe(listener: () => void): () => void;
  /** Forgets every command not taken yet (the person went elsewhere). */
  clear(): void;
}

export function createConversationInbox(): ConversationInbox {
  const waiting = new Map<string, ConversationCommand[]>();
  const listeners = new Set<() => void>();
  return {
    post(conversationId, command) {
      waiting.set(conversationId, [...(waiting.get(conversationId) ?? []), command]);
      for (const listener of [...listeners]) listener();
    },
    take(conversationId) {
      const commands = waiting.get(conversationId) ?? [];
      waiting.delete(conversationId);
      return commands;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    clear() {
      waiting.clear();
    },
  };
}
