import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import type { Conversation } from "./conversation-store";
import { conversationKeyRange, nextOrder, outboxKey, type OutboxEntry, type OutboxRow } from "./history-outbox";

/**
 * This browser's chat database (IndexedDB `lwc-chat`): the account's conversations and drafts,
 * and, with history kept by the server, what waits to be sent there and how far this browser has
 * read (lib/client/history-store.ts). Every record is keyed by account first: one account's id can
 * never reach another account's record.
 */

/** How far this browser has synced an account with the server. */
export interface SyncState {
  accountId: string;
  /** The cursor of the last page read (0: nothing read yet). */
  cursor: number;
  /** The conversations this browser kept before history was on were queued for the server once. */
  uploaded: boolean;
  /** The person's own instructions as last read or written ("" when none). */
  instructions: { text: string; rev: number };
}

export interface ChatDb extends DBSchema {
  conversations: { key: [string, string]; value: Conversation; indexes: { byAccount: string } };
  drafts: { key: [string, string]; value: { accountId: string; key: string; text: string } };
  outbox: { key: [string, string]; value: OutboxRow };
  sync: { key: string; value: SyncState };
}

export type ChatDatabase = IDBPDatabase<ChatDb>;

const DB_NAME = "lwc-chat";
/**
 * 1: conversations and drafts; 2: the outbox and the sync state; 3: every conversation has
 * `pinned` and `archived`. A build that added the flags before the outbox also called its database
 * 2: version 3 makes whatever of the outbox and the sync state such a database lacks.
 */
const DB_VERSION = 3;

export async function openChatDb(): Promise<ChatDatabase> {
  if (typeof globalThis.indexedDB === "undefined") throw new Error("IndexedDB is not available");
  const database: ChatDatabase = await openDB<ChatDb>(DB_NAME, DB_VERSION, {
    async upgrade(upgrading, oldVersion, _newVersion, transaction) {
      if (oldVersion < 1) {
        const conversations = upgrading.createObjectStore("conversations", { keyPath: ["accountId", "id"] });
        conversations.createIndex("byAccount", "accountId");
        upgrading.createObjectStore("drafts", { keyPath: ["accountId", "key"] });
      }
      if (oldVersion < 3) {
        if (!upgrading.objectStoreNames.contains("outbox")) upgrading.createObjectStore("outbox", { keyPath: ["accountId", "key"] });
        if (!upgrading.objectStoreNames.contains("sync")) upgrading.createObjectStore("sync", { keyPath: "accountId" });
      }
      if (oldVersion >= 1 && oldVersion < 3) {
        const conversations = transaction.objectStore("conversations");
        for (let cursor = await conversations.openCursor(); cursor; cursor = await cursor.continue()) {
          const { pinned, archived } = cursor.value;
          if (typeof pinned !== "boolean" || typeof archived !== "boolean") await cursor.update({ ...cursor.value, pinned: pinned === true, archived: archived === true });
        }
      }
    },
    // A tab of a newer version of the app wants to upgrade the database: this one steps aside
    // (its writes then fail, and the page keeps its conversations in the tab, saying so).
    blocking() {
      database.close();
    },
  });
  return database;
}

/** The range of an account's keys in a store keyed by [accountId, string]. */
export function accountRange(accountId: string): IDBKeyRange {
  return IDBKeyRange.bound([accountId, ""], [accountId, "\uffff"]);
}

/** The outbox of a read-write transaction. */
interface OutboxStore {
  delete(key: IDBKeyRange): Promise<void>;
  put(value: OutboxRow): Promise<unknown>;
}

/**
 * Queues entries in the outbox, inside the caller's transaction: a conversation's delete drops
 * what was queued for it; a later entry of the same key replaces the earlier one.
 */
export async function queueEntries(outbox: OutboxStore, accountId: string, entries: readonly OutboxEntry[]): Promise<void> {
  for (const entry of entries) {
    if (entry.kind === "delete-conversation") {
      const [from, to] = conversationKeyRange(entry.conversationId);
      await outbox.delete(IDBKeyRange.bound([accountId, from], [accountId, to]));
    }
    await outbox.put({ accountId, key: outboxKey(entry), entry, order: nextOrder() });
  }
}
