import type { ChatStatus } from "ai";
import type { ChatUIMessage } from "./chat-turns";
import { interruptedSnapshot } from "./interrupted-answers";
import { throttleLatest } from "./throttle";

/**
 * Where a conversation's messages and draft are kept. The chat only calls these; they land in this
 * browser's IndexedDB (useConversations), which merges them into the conversation's tree of
 * messages and, with history on the server, queues them for it.
 */
export interface ConversationPersistence {
  /**
   * Keeps the branch on screen (not when another conversation is open by now): messages new to
   * the conversation follow the one before them; messages that left the branch (an earlier
   * version) stay.
   */
  saveMessages(conversationId: string, messages: ChatUIMessage[]): void;
  /** Takes messages out for good (a retried or removed failed turn, a failed new version), with the next save. */
  removeMessages(conversationId: string, messageIds: readonly string[]): void;
  /** Keeps the conversation's unsent text. */
  saveDraft(conversationId: string, text: string): void;
}

/** A draft is kept once typing pauses this long. */
export const DRAFT_SAVE_DELAY_MS = 300;
/** How often an answer is saved while it streams: a reload loses at most this much of it. */
export const ANSWER_SAVE_INTERVAL_MS = 1000;

/** When an open conversation is kept, told what changes; see createConversationSaver. */
export interface ConversationSaver {
  /** The messages or the chat's status changed. */
  messagesChanged(messages: ChatUIMessage[], status: ChatStatus): void;
  /** The text in the message box changed. */
  draftChanged(text: string): void;
  /** The page goes away: the answer so far is kept now rather than at the end of the interval. */
  flush(): void;
  /** The conversation closes: as flush, and a draft still waiting for its pause is dropped. */
  close(): void;
  /** These messages came from the kept copy (another tab or device changed it): nothing to save. */
  adopt(messages: ChatUIMessage[]): void;
}

/** The same message objects in the same order (useChat copies the list it is given, not the messages). */
function sameMessages(a: readonly ChatUIMessage[], b: readonly ChatUIMessage[]): boolean {
  return a === b || (a.length === b.length && a.every((message, index) => message === b[index]));
}

/**
 * Keeps an open conversation: whenever it settles (and when a turn starts, so a reload mid-answer
 * keeps the question), not on every streamed word; while an answer streams, the text so far at
 * most once an interval, marked interrupted (if the page goes away, that is what comes back; the
 * settled save replaces it); and the draft once typing pauses. Opening a conversation saves
 * nothing: `loaded` is what was opened.
 */
export function createConversationSaver(
  persistence: ConversationPersistence,
  conversationId: string,
  loaded: { messages: ChatUIMessage[]; draft: string },
): ConversationSaver {
  const streamingSave = throttleLatest((messages: ChatUIMessage[]) => persistence.saveMessages(conversationId, interruptedSnapshot(messages)), ANSWER_SAVE_INTERVAL_MS);
  let savedDraft = loaded.draft;
  let draftTimer: ReturnType<typeof setTimeout> | undefined;
  let unchanged = loaded.messages;

  return {
    messagesChanged(messages, status) {
      if (status === "streaming") {
        streamingSave.push(messages);
        return;
      }
      streamingSave.cancel();
      if (!sameMessages(messages, unchanged)) persistence.saveMessages(conversationId, messages);
    },
    adopt(messages) {
      unchanged = messages;
    },
    draftChanged(text) {
      clearTimeout(draftTimer);
      if (text === savedDraft) return;
      draftTimer = setTimeout(() => {
        savedDraft = text;
        persistence.saveDraft(conversationId, text);
      }, DRAFT_SAVE_DELAY_MS);
    },
    flush() {
      streamingSave.flush();
    },
    close() {
      clearTimeout(draftTimer);
      streamingSave.flush();
    },
  };
}
