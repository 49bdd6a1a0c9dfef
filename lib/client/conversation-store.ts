import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import type { ChatUIMessage } from "./chat-turns";

/**
 * Conversations live in this browser only (IndexedDB), one set per signed-in account: the server
 * never sees them except as the request of the moment. Drafts are kept the same way. The fields
 * beside `messages` have the names of the server's chat history (docs/api.md#chat-history).
 */
export interface Conversation {
  id: string;
  accountId: string;
  title: string;
  /** True once the person renamed it; the title then no longer follows the first message nor takes a generated one. */
  titleEdited: boolean;
  /** Shown under Pinned, at the top of the list. */
  pinned: boolean;
  /** Out of the list, in its own Archived section; still searchable. */
  archived: boolean;
  createdAt: number;
  updatedAt: number;
  messages: ChatUIMessage[];
}

export type ConversationSummary = Pick<Conversation, "id" | "title" | "updatedAt" | "pinned" | "archived">;

/** What organising changes on a conversation; none of it moves the conversation in time (`updatedAt`). */
export interface ConversationChange {
  pinned?: boolean;
  archived?: boolean;
  /** A title made for the conversation (after its first answer): taken only while the person has not named it. */
  generatedTitle?: string;
}

type OrganisedFields = Pick<Conversation, "title" | "titleEdited" | "pinned" | "archived">;

/** `change` applied to a conversation (or to what the open one keeps besides its messages). */
export function applyConversationChange<T extends OrganisedFields>(target: T, change: ConversationChange): T {
  const next = { ...target };
  if (change.pinned !== undefined) next.pinned = change.pinned;
  if (change.archived !== undefined) next.archived = change.archived;
  if (change.generatedTitle !== undefined && !target.titleEdited) next.title = change.generatedTitle;
  return next;
}

export interface ConversationStore {
  /** False when the browser's storage is unavailable and conversations last only as long as this tab. */
  readonly persistent: boolean;
  /** The account's conversations, newest first. */
  list(accountId: string): Promise<ConversationSummary[]>;
  get(accountId: string, id: string): Promise<Conversation | undefined>;
  /** The account's conversations whole (messages included), newest first: for search and export. */
  all(accountId: string): Promise<Conversation[]>;
  /**
   * Keeps those of `conversations` whose id the account does not have yet (an import), all in one
   * step; returns the ids added. Ones already present are left exactly as they are.
   */
  addMissing(accountId: string, conversations: Conversation[]): Promise<string[]>;
  save(conversation: Conversation): Promise<void>;
  rename(accountId: string, id: string, title: string): Promise<void>;
  /** Pins, archives or titles a conversation the account has (see ConversationChange); nothing for an unknown id. */
  update(accountId: string, id: string, change: ConversationChange): Promise<void>;
  remove(accountId: string, id: string): Promise<void>;
  /** The unsent text of a conversation ("" when none); `draftKey` is a conversation id or NEW_CHAT_DRAFT. */
  getDraft(accountId: string, draftKey: string): Promise<string>;
  setDraft(accountId: string, draftKey: string, text: string): Promise<void>;
  /** Deletes everything this browser keeps for the account. */
  forgetAccount(accountId: string): Promise<void>;
}

/** The draft of a chat that has no messages (and so no saved conversation) yet. */
export const NEW_CHAT_DRAFT = "new";

/** Long enough for any ordinary first line: the list shortens titles on screen, the rename box shows them whole. */
const TITLE_MAX_CHARS = 200;

/** A title from the first message: its first line, shortened at a word only when it is very long. */
export function titleFromText(text: string): string {
  const line = text.trim().split("\n")[0]?.trim() ?? "";
  if (line.length <= TITLE_MAX_CHARS) return line || "New chat";
  const cut = line.slice(0, TITLE_MAX_CHARS);
  const lastSpace = cut.lastIndexOf(" ");
  return `${(lastSpace > TITLE_MAX_CHARS / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}

const DB_NAME = "lwc-chat";
/** 1: conversations and drafts. 2: every conversation has `pinned` and `archived`. */
const DB_VERSION = 2;

interface ChatDb extends DBSchema {
  conversations: { key: [string, string]; value: Conversation; indexes: { byAccount: string } };
  drafts: { key: [string, string]; value: { accountId: string; key: string; text: string } };
}

function byNewest(a: ConversationSummary, b: ConversationSummary): number {
  return b.updatedAt - a.updatedAt;
}

function summary({ id, title, updatedAt, pinned, archived }: Conversation): ConversationSummary {
  // A record an older version of the app (or a test) wrote without the flags is neither.
  return { id, title, updatedAt, pinned: pinned === true, archived: archived === true };
}

/** A record as this version keeps it: the flags an older version did not write, false. */
function withFlags(conversation: Conversation): Conversation {
  return { ...conversation, pinned: conversation.pinned === true, archived: conversation.archived === true };
}

/** Keys are scoped by account, so one account's id can never reach another account's record. */
function recordKey(accountId: string, id: string): string {
  return `${accountId}\u0000${id}`;
}

export async function openIndexedDbConversationStore(): Promise<ConversationStore> {
  if (typeof globalThis.indexedDB === "undefined") throw new Error("IndexedDB is not available");
  const db: IDBPDatabase<ChatDb> = await openDB<ChatDb>(DB_NAME, DB_VERSION, {
    async upgrade(database, oldVersion, _newVersion, transaction) {
      if (oldVersion < 1) {
        // Keyed by [accountId, id]: one account's id can never reach another account's record.
        const conversations = database.createObjectStore("conversations", { keyPath: ["accountId", "id"] });
        conversations.createIndex("byAccount", "accountId");
        database.createObjectStore("drafts", { keyPath: ["accountId", "key"] });
        return;
      }
      if (oldVersion < 2) {
        for (let cursor = await transaction.objectStore("conversations").openCursor(); cursor; cursor = await cursor.continue()) {
          await cursor.update(withFlags(cursor.value));
        }
      }
    },
  });

  return {
    persistent: true,
    async list(accountId) {
      const all = await db.getAllFromIndex("conversations", "byAccount", accountId);
      return all.map(summary).sort(byNewest);
    },
    async get(accountId, id) {
      const found = await db.get("conversations", [accountId, id]);
      return found && withFlags(found);
    },
    async all(accountId) {
      return (await db.getAllFromIndex("conversations", "byAccount", accountId)).map(withFlags).sort(byNewest);
    },
    async addMissing(accountId, incoming) {
      const tx = db.transaction("conversations", "readwrite");
      const added: string[] = [];
      for (const conversation of incoming) {
        if ((await tx.store.getKey([accountId, conversation.id])) !== undefined) continue;
        await tx.store.put({ ...conversation, accountId });
        added.push(conversation.id);
      }
      await tx.done;
      return added;
    },
    async save(conversation) {
      await db.put("conversations", conversation);
    },
    async rename(accountId, id, title) {
      const tx = db.transaction("conversations", "readwrite");
      const found = await tx.store.get([accountId, id]);
      if (found) await tx.store.put({ ...found, title, titleEdited: true });
      await tx.done;
    },
    async update(accountId, id, change) {
      const tx = db.transaction("conversations", "readwrite");
      const found = await tx.store.get([accountId, id]);
      if (found) await tx.store.put(applyConversationChange(withFlags(found), change));
      await tx.done;
    },
    async remove(accountId, id) {
      const tx = db.transaction(["conversations", "drafts"], "readwrite");
      await tx.objectStore("conversations").delete([accountId, id]);
      await tx.objectStore("drafts").delete([accountId, id]);
      await tx.done;
    },
    async getDraft(accountId, draftKey) {
      return (await db.get("drafts", [accountId, draftKey]))?.text ?? "";
    },
    async setDraft(accountId, draftKey, text) {
      if (text) await db.put("drafts", { accountId, key: draftKey, text });
      else await db.delete("drafts", [accountId, draftKey]);
    },
    async forgetAccount(accountId) {
      const tx = db.transaction(["conversations", "drafts"], "readwrite");
      const keys = await tx.objectStore("conversations").index("byAccount").getAllKeys(accountId);
      for (const key of keys) await tx.objectStore("conversations").delete(key);
      const drafts = await tx.objectStore("drafts").getAllKeys(IDBKeyRange.bound([accountId, ""], [accountId, "\uffff"]));
      for (const key of drafts) await tx.objectStore("drafts").delete(key);
      await tx.done;
    },
  };
}

/** The in-tab fallback: the same operations on plain maps, gone when the tab closes. */
export function createMemoryConversationStore(): ConversationStore {
  const conversations = new Map<string, Conversation>();
  const drafts = new Map<string, string>();
  return {
    persistent: false,
    async list(accountId) {
      return [...conversations.values()].filter((c) => c.accountId === accountId).map(summary).sort(byNewest);
    },
    async get(accountId, id) {
      const found = conversations.get(recordKey(accountId, id));
      return found ? withFlags(structuredClone(found)) : undefined;
    },
    async all(accountId) {
      return structuredClone([...conversations.values()].filter((c) => c.accountId === accountId).map(withFlags).sort(byNewest));
    },
    async addMissing(accountId, incoming) {
      const added: string[] = [];
      for (const conversation of incoming) {
        const key = recordKey(accountId, conversation.id);
        if (conversations.has(key)) continue;
        conversations.set(key, structuredClone({ ...conversation, accountId }));
        added.push(conversation.id);
      }
      return added;
    },
    async save(conversation) {
      conversations.set(recordKey(conversation.accountId, conversation.id), structuredClone(conversation));
    },
    async rename(accountId, id, title) {
      const found = conversations.get(recordKey(accountId, id));
      if (found) conversations.set(recordKey(accountId, id), { ...found, title, titleEdited: true });
    },
    async update(accountId, id, change) {
      const found = conversations.get(recordKey(accountId, id));
      if (found) conversations.set(recordKey(accountId, id), applyConversationChange(withFlags(found), change));
    },
    async remove(accountId, id) {
      conversations.delete(recordKey(accountId, id));
      drafts.delete(recordKey(accountId, id));
    },
    async getDraft(accountId, draftKey) {
      return drafts.get(recordKey(accountId, draftKey)) ?? "";
    },
    async setDraft(accountId, draftKey, text) {
      if (text) drafts.set(recordKey(accountId, draftKey), text);
      else drafts.delete(recordKey(accountId, draftKey));
    },
    async forgetAccount(accountId) {
      for (const [key, conversation] of conversations) if (conversation.accountId === accountId) conversations.delete(key);
      for (const key of drafts.keys()) if (key.startsWith(`${accountId}\u0000`)) drafts.delete(key);
    },
  };
}

/**
 * IndexedDB when the browser allows it, otherwise the in-tab store. A write that fails later
 * (quota, storage cleared under us) switches to the in-tab store for the rest of the tab's life,
 * and `onFallback` tells the UI so it can say conversations are no longer kept.
 */
export async function openConversationStore(onFallback?: () => void): Promise<ConversationStore> {
  let primary: ConversationStore;
  try {
    primary = await openIndexedDbConversationStore();
  } catch {
    return createMemoryConversationStore();
  }
  const memory = createMemoryConversationStore();
  let failed = false;
  const guarded = <A extends unknown[], R>(operation: (store: ConversationStore) => (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (!failed) {
        try {
          return await operation(primary)(...args);
        } catch {
          failed = true;
          onFallback?.();
        }
      }
      return operation(memory)(...args);
    };
  return {
    get persistent() {
      return !failed;
    },
    list: guarded((store) => store.list),
    get: guarded((store) => store.get),
    all: guarded((store) => store.all),
    addMissing: guarded((store) => store.addMissing),
    save: guarded((store) => store.save),
    rename: guarded((store) => store.rename),
    update: guarded((store) => store.update),
    remove: guarded((store) => store.remove),
    getDraft: guarded((store) => store.getDraft),
    setDraft: guarded((store) => store.setDraft),
    forgetAccount: guarded((store) => store.forgetAccount),
  };
}
