import type { IDBPTransaction } from "idb";
import { accountRange, openChatDb, queueEntries, type ChatDatabase, type ChatDb } from "./chat-db";
import type { ChatUIMessage } from "./chat-turns";
import { mergeLocalSave, type LocalSave } from "./conversation-record";
import { entriesForSave, type OutboxEntry } from "./history-outbox";
import type { MessageLink } from "./message-tree";

/**
 * This browser's copy of the conversations (IndexedDB), one set per signed-in account, and the
 * drafts (kept here only). Where the server keeps chats, each write can queue what it changed for
 * it (WriteOptions). The fields beside `messages` have the names of the server's chat history
 * (docs/api.md#chat-history).
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
  /** The branch shown, oldest first (what search, export and the first paint read). */
  messages: ChatUIMessage[];
  /** The messages off that branch: other versions of a question or an answer, and what follows them. */
  otherMessages?: ChatUIMessage[];
  /**
   * Where each message sits (its parent, when it was made, the rev of its last write), by id.
   * Absent in a conversation kept before messages had parents: its messages follow each other.
   */
  links?: Record<string, MessageLink>;
  /** Messages deleted here or on another device, with the parent each had (what followed them follows it). */
  removedMessages?: Record<string, string | null>;
  /** The rev that last set each field group, as the server merges them (docs/api.md#the-model). */
  revs?: { title?: number; pinned?: number; archived?: number };
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

/** `change` applied to what the open conversation keeps besides its messages. */
export function applyConversationChange<T extends OrganisedFields>(target: T, change: ConversationChange): T {
  const next = { ...target };
  if (change.pinned !== undefined) next.pinned = change.pinned;
  if (change.archived !== undefined) next.archived = change.archived;
  if (change.generatedTitle !== undefined && !target.titleEdited) next.title = change.generatedTitle;
  return next;
}

/**
 * `change` applied to a kept conversation, each field group it changes with a new rev (as a
 * rename's), so it reaches the server and wins there over what it replaced; undefined when it
 * changes nothing. A generated title's rev is one above the title it replaces, not the time: it
 * beats the title taken from the first question, never a name the person gave on another device
 * that has not arrived here yet.
 */
function organised(conversation: Conversation, change: ConversationChange, now: number): Conversation | undefined {
  const kept = withFlags(conversation);
  const next = applyConversationChange(kept, change);
  const revs = { ...kept.revs };
  const bump = (rev: number | undefined) => Math.max(now, (rev ?? 0) + 1);
  if (next.pinned !== kept.pinned) revs.pinned = bump(revs.pinned);
  if (next.archived !== kept.archived) revs.archived = bump(revs.archived);
  if (next.title !== kept.title) revs.title = (revs.title ?? 0) + 1;
  if (next.pinned === kept.pinned && next.archived === kept.archived && next.title === kept.title) return undefined;
  return { ...next, revs };
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
  addMissing(accountId: string, conversations: Conversation[], options?: WriteOptions): Promise<string[]>;
  /** Keeps the conversation exactly as given (replacing what was kept). */
  save(conversation: Conversation): Promise<void>;
  /**
   * Merges a tab's save into what is kept (lib/client/conversation-record: nothing another tab or
   * device added is lost); the kept conversation, or undefined when nothing changed.
   */
  saveBranch(accountId: string, id: string, save: LocalSave, options?: WriteOptions): Promise<Conversation | undefined>;
  rename(accountId: string, id: string, title: string, options?: WriteOptions): Promise<void>;
  /**
   * Pins, archives or titles a conversation the account has (see ConversationChange), queued for
   * the server like a rename; nothing for an unknown id or a change that changes nothing.
   */
  update(accountId: string, id: string, change: ConversationChange, options?: WriteOptions): Promise<void>;
  remove(accountId: string, id: string, options?: WriteOptions): Promise<void>;
  /** The unsent text of a conversation ("" when none); `draftKey` is a conversation id or NEW_CHAT_DRAFT. */
  getDraft(accountId: string, draftKey: string): Promise<string>;
  setDraft(accountId: string, draftKey: string, text: string): Promise<void>;
  /** Deletes everything this browser keeps for the account (its queue for the server and sync state included). */
  forgetAccount(accountId: string): Promise<void>;
}

interface WriteOptions {
  /** History is kept by the server: queue what changed to be sent (lib/client/history-outbox). */
  queue?: boolean;
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

export async function openIndexedDbConversationStore(opened?: ChatDatabase): Promise<ConversationStore> {
  const db = opened ?? (await openChatDb());
  /** Runs `write` on the conversations (and drafts and the outbox) in one transaction, queueing what it says changed. */
  const writing = async <T>(accountId: string, options: WriteOptions | undefined, write: (tx: ConversationTx) => Promise<{ result: T; queue: OutboxEntry[] }>) => {
    const tx = db.transaction(["conversations", "drafts", "outbox"], "readwrite");
    const { result, queue } = await write(tx);
    if (options?.queue && queue.length > 0) await queueEntries(tx.objectStore("outbox"), accountId, queue);
    await tx.done;
    return result;
  };

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
    async addMissing(accountId, incoming, options) {
      return writing(accountId, options, async (tx) => {
        const added: string[] = [];
        const store = tx.objectStore("conversations");
        for (const conversation of incoming) {
          if ((await store.getKey([accountId, conversation.id])) !== undefined) continue;
          await store.put({ ...conversation, accountId });
          added.push(conversation.id);
        }
        return { result: added, queue: added.flatMap((id) => entriesForWhole(incoming.find((conversation) => conversation.id === id)!)) };
      });
    },
    async save(conversation) {
      await db.put("conversations", conversation);
    },
    async saveBranch(accountId, id, save, options) {
      return writing(accountId, options, async (tx) => {
        const store = tx.objectStore("conversations");
        const merged = mergeLocalSave(await store.get([accountId, id]), { accountId, id }, save, Date.now());
        if (!merged) return { result: undefined, queue: [] };
        await store.put(merged.conversation);
        return { result: merged.conversation, queue: entriesForSave(id, merged.changes) };
      });
    },
    async rename(accountId, id, title, options) {
      await writing(accountId, options, async (tx) => {
        const store = tx.objectStore("conversations");
        const found = await store.get([accountId, id]);
        if (!found) return { result: undefined, queue: [] };
        await store.put(renamed(found, title, Date.now()));
        return { result: undefined, queue: [{ kind: "conversation", conversationId: id }] };
      });
    },
    async update(accountId, id, change, options) {
      await writing(accountId, options, async (tx) => {
        const store = tx.objectStore("conversations");
        const found = await store.get([accountId, id]);
        const next = found && organised(found, change, Date.now());
        if (!next) return { result: undefined, queue: [] };
        await store.put(next);
        return { result: undefined, queue: [{ kind: "conversation", conversationId: id }] };
      });
    },
    async remove(accountId, id, options) {
      await writing(accountId, options, async (tx) => {
        await tx.objectStore("conversations").delete([accountId, id]);
        await tx.objectStore("drafts").delete([accountId, id]);
        return { result: undefined, queue: [{ kind: "delete-conversation", conversationId: id }] };
      });
    },
    async getDraft(accountId, draftKey) {
      return (await db.get("drafts", [accountId, draftKey]))?.text ?? "";
    },
    async setDraft(accountId, draftKey, text) {
      if (text) await db.put("drafts", { accountId, key: draftKey, text });
      else await db.delete("drafts", [accountId, draftKey]);
    },
    async forgetAccount(accountId) {
      const tx = db.transaction(["conversations", "drafts", "outbox", "sync"], "readwrite");
      const keys = await tx.objectStore("conversations").index("byAccount").getAllKeys(accountId);
      for (const key of keys) await tx.objectStore("conversations").delete(key);
      await tx.objectStore("drafts").delete(accountRange(accountId));
      await tx.objectStore("outbox").delete(accountRange(accountId));
      await tx.objectStore("sync").delete(accountId);
      await tx.done;
    },
  };
}

type ConversationTx = IDBPTransaction<ChatDb, ("conversations" | "drafts" | "outbox")[], "readwrite">;

/** The conversation with the person's title, set now (it wins over older titles on every device). */
function renamed(conversation: Conversation, title: string, now: number): Conversation {
  return { ...conversation, title, titleEdited: true, revs: { ...conversation.revs, title: Math.max(now, (conversation.revs?.title ?? 0) + 1) } };
}

/** Everything of a conversation, for the server (an import, or a first upload). */
export function entriesForWhole(conversation: Conversation): OutboxEntry[] {
  const ids = [...conversation.messages, ...(conversation.otherMessages ?? [])].map((message) => message.id);
  return entriesForSave(conversation.id, { conversation: true, messages: ids, deletedMessages: [] });
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
    async saveBranch(accountId, id, save) {
      const merged = mergeLocalSave(conversations.get(recordKey(accountId, id)), { accountId, id }, save, Date.now());
      if (merged) conversations.set(recordKey(accountId, id), structuredClone(merged.conversation));
      return merged ? structuredClone(merged.conversation) : undefined;
    },
    async rename(accountId, id, title) {
      const found = conversations.get(recordKey(accountId, id));
      if (found) conversations.set(recordKey(accountId, id), renamed(found, title, Date.now()));
    },
    async update(accountId, id, change) {
      const found = conversations.get(recordKey(accountId, id));
      const next = found && organised(found, change, Date.now());
      if (next) conversations.set(recordKey(accountId, id), next);
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
    saveBranch: guarded((store) => store.saveBranch),
    rename: guarded((store) => store.rename),
    update: guarded((store) => store.update),
    remove: guarded((store) => store.remove),
    getDraft: guarded((store) => store.getDraft),
    setDraft: guarded((store) => store.setDraft),
    forgetAccount: guarded((store) => store.forgetAccount),
  };
}
