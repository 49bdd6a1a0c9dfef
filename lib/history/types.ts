import "server-only";
/**
 * The history's records as the API carries them (docs/api.md#chat-history). The shapes of a
 * conversation and its messages follow the browser's (lib/client/conversation-store.ts
 * `Conversation`, lib/client/chat-turns.ts `ChatUIMessage`), plus what merging needs: a parent
 * link per message and a `rev` per write.
 */

/** A conversation's metadata, as written: only the fields given change, each if `rev` is higher than the rev that set it. */
export interface ConversationWrite {
  id: string;
  /** Grows with every change made on a device; the change's time in epoch ms is a good value. */
  rev: number;
  createdAt?: number;
  updatedAt?: number;
  title?: string;
  titleEdited?: boolean;
  pinned?: boolean;
  archived?: boolean;
}

export type MessageRole = "user" | "assistant";

/** One message, as written; a later write of the same id with a higher `rev` replaces its parts and metadata. */
export interface MessageWrite {
  conversationId: string;
  id: string;
  /** The message this one follows (null: the first); an edit or regenerate shares its original's parent. */
  parentId: string | null;
  role: MessageRole;
  parts: unknown[];
  metadata?: Record<string, unknown>;
  createdAt: number;
  rev: number;
}

interface MessageRef {
  conversationId: string;
  id: string;
}

/** One POST /history/changes. */
export interface PushBatch {
  conversations: ConversationWrite[];
  messages: MessageWrite[];
  deletedConversations: string[];
  deletedMessages: MessageRef[];
}

/** `applied`: stored; `unchanged`: the server already had this rev or a newer one; `deleted`: it (or its conversation) is deleted. */
export type WriteStatus = "applied" | "unchanged" | "deleted";

export interface PushResult {
  cursor: number;
  conversations: { id: string; status: WriteStatus }[];
  messages: { conversationId: string; id: string; status: WriteStatus }[];
}

export type ConversationChange =
  | { id: string; seq: number; deleted: true }
  | {
      id: string;
      seq: number;
      deleted: false;
      title: string;
      titleEdited: boolean;
      pinned: boolean;
      archived: boolean;
      createdAt: number;
      updatedAt: number;
      /** The rev that set each field group (title with titleEdited). */
      revs: { title: number; pinned: number; archived: number };
    };

export type MessageChange =
  | { conversationId: string; id: string; seq: number; deleted: true }
  | {
      conversationId: string;
      id: string;
      seq: number;
      deleted: false;
      parentId: string | null;
      role: MessageRole;
      parts: unknown[];
      metadata?: Record<string, unknown>;
      createdAt: number;
      rev: number;
    };

/** One page of GET /history/changes. */
export interface ChangesPage {
  cursor: number;
  more: boolean;
  /** Set when the cursor given cannot continue: `cleared` (everything was deleted: drop the local copy) or `unknown_cursor`. */
  restart?: "cleared" | "unknown_cursor";
  conversations: ConversationChange[];
  messages: MessageChange[];
  /** Present when the person's instructions changed since the cursor ("" when removed). */
  instructions?: { text: string; rev: number };
}

export interface ShareSummary {
  id: string;
  conversationId: string;
  createdAt: number;
}

/** What the public share route shows: the branch's messages, their parts only. */
export interface ShareSnapshot {
  title: string;
  createdAt: number;
  messages: { id: string; role: MessageRole; parts: unknown[]; createdAt: number }[];
}
