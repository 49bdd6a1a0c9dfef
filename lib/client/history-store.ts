import { accountRange, queueEntries, type ChatDatabase, type SyncState } from "./chat-db";
import { applyRemote, treeOfConversation, type RemoteConversation, type RemoteMessage } from "./conversation-record";
import { entriesForWhole, NEW_CHAT_DRAFT } from "./conversation-store";
import { conversationKeyRange, outboxKey, type OutboxRow } from "./history-outbox";
import { conversationWrite, messageWrite, type ChangesPage, type PushItem } from "./history-wire";

/**
 * The browser's side of syncing with the server, over its chat database: what is queued to send
 * (read as it is now), a page from the server merged in (with the cursor, in one transaction), the
 * first upload of what this browser kept before, and starting again after "delete everything".
 */
export interface HistoryLocalStore {
  state(accountId: string): Promise<SyncState>;
  setState(accountId: string, patch: Partial<Omit<SyncState, "accountId">>): Promise<void>;
  /** The queue, oldest first, each entry with what to send now (none: drop it, there is nothing left to send). */
  pending(accountId: string): Promise<{ row: OutboxRow; item?: PushItem }[]>;
  /** Takes sent entries off the queue, unless they were queued again since they were read. */
  ack(accountId: string, rows: readonly OutboxRow[]): Promise<void>;
  /** Merges a page and keeps its cursor; the ids of the conversations that changed here. */
  applyPage(accountId: string, page: ChangesPage): Promise<string[]>;
  /** Queues every conversation this browser keeps (the first upload, or after the server lost them); how many. */
  queueAll(accountId: string): Promise<number>;
  /** Drops the account's conversations, drafts and queue: the person deleted everything on the server. */
  clear(accountId: string): Promise<void>;
}

const NO_INSTRUCTIONS = { text: "", rev: 0 };

export function createHistoryStore(db: ChatDatabase): HistoryLocalStore {
  const state = async (accountId: string): Promise<SyncState> =>
    (await db.get("sync", accountId)) ?? { accountId, cursor: 0, uploaded: false, instructions: NO_INSTRUCTIONS };

  return {
    state,
    async setState(accountId, patch) {
      const tx = db.transaction("sync", "readwrite");
      const current = (await tx.store.get(accountId)) ?? { accountId, cursor: 0, uploaded: false, instructions: NO_INSTRUCTIONS };
      await tx.store.put({ ...current, ...patch, accountId });
      await tx.done;
    },
    async pending(accountId) {
      const rows = (await db.getAll("outbox", accountRange(accountId))).sort((a, b) => a.order - b.order);
      const read = new Map<string, Awaited<ReturnType<typeof db.get<"conversations">>>>();
      const conversation = async (id: string) => {
        if (!read.has(id)) read.set(id, await db.get("conversations", [accountId, id]));
        return read.get(id);
      };
      const pending: { row: OutboxRow; item?: PushItem }[] = [];
      for (const row of rows) {
        const { entry } = row;
        if (entry.kind === "delete-conversation") pending.push({ row, item: { kind: "delete-conversation", id: entry.conversationId } });
        else if (entry.kind === "delete-message") pending.push({ row, item: { kind: "delete-message", ref: { conversationId: entry.conversationId, id: entry.messageId } } });
        else {
          const found = await conversation(entry.conversationId);
          if (!found) pending.push({ row });
          else if (entry.kind === "conversation") {
            const writes = conversationWrite(found);
            pending.push(writes ? { row, item: { kind: "conversation", writes } } : { row });
          } else {
            const node = treeOfConversation(found).tree.nodes.get(entry.messageId);
            const write = node && messageWrite(entry.conversationId, node);
            pending.push(write ? { row, item: { kind: "message", write } } : { row });
          }
        }
      }
      return pending;
    },
    async ack(accountId, rows) {
      const tx = db.transaction("outbox", "readwrite");
      for (const row of rows) {
        const current = await tx.store.get([accountId, row.key]);
        if (current && current.order === row.order) await tx.store.delete([accountId, row.key]);
      }
      await tx.done;
    },
    async applyPage(accountId, page) {
      const byConversation = new Map<string, { conversation?: RemoteConversation; deleted?: boolean; messages: RemoteMessage[] }>();
      const entry = (id: string) => {
        let found = byConversation.get(id);
        if (!found) byConversation.set(id, (found = { messages: [] }));
        return found;
      };
      for (const item of page.conversations) {
        if (item.deleted) entry(item.id).deleted = true;
        else entry(item.id).conversation = item;
      }
      for (const { conversationId, ...message } of page.messages) entry(conversationId).messages.push(message);

      const tx = db.transaction(["conversations", "drafts", "outbox", "sync"], "readwrite");
      const changed: string[] = [];
      for (const [id, remote] of byConversation) {
        const conversations = tx.objectStore("conversations");
        if (remote.deleted) {
          if ((await conversations.getKey([accountId, id])) === undefined) continue;
          await conversations.delete([accountId, id]);
          await tx.objectStore("drafts").delete([accountId, id]);
          const [from, to] = conversationKeyRange(id);
          await tx.objectStore("outbox").delete(IDBKeyRange.bound([accountId, from], [accountId, to]));
          changed.push(id);
          continue;
        }
        // Deleted here, its delete still on its way: it does not come back meanwhile.
        if ((await tx.objectStore("outbox").getKey([accountId, outboxKey({ kind: "delete-conversation", conversationId: id })])) !== undefined) continue;
        const merged = applyRemote(await conversations.get([accountId, id]), { accountId, id }, remote);
        if (!merged) continue;
        await conversations.put(merged);
        changed.push(id);
      }
      const sync = tx.objectStore("sync");
      const current = (await sync.get(accountId)) ?? { accountId, cursor: 0, uploaded: false, instructions: NO_INSTRUCTIONS };
      const instructions = page.instructions && page.instructions.rev >= current.instructions.rev ? page.instructions : current.instructions;
      await sync.put({ ...current, cursor: page.cursor, instructions });
      await tx.done;
      return changed;
    },
    async queueAll(accountId) {
      const tx = db.transaction(["conversations", "drafts", "outbox", "sync"], "readwrite");
      const all = await tx.objectStore("conversations").index("byAccount").getAll(accountId);
      for (const conversation of all) await queueEntries(tx.objectStore("outbox"), accountId, entriesForWhole(conversation));
      const sync = tx.objectStore("sync");
      const current = (await sync.get(accountId)) ?? { accountId, cursor: 0, uploaded: false, instructions: NO_INSTRUCTIONS };
      await sync.put({ ...current, uploaded: true });
      await tx.done;
      return all.length;
    },
    async clear(accountId) {
      const tx = db.transaction(["conversations", "drafts", "outbox", "sync"], "readwrite");
      const keys = await tx.objectStore("conversations").index("byAccount").getAllKeys(accountId);
      for (const key of keys) await tx.objectStore("conversations").delete(key);
      for (const key of await tx.objectStore("drafts").getAllKeys(accountRange(accountId))) {
        if (key[1] !== NEW_CHAT_DRAFT) await tx.objectStore("drafts").delete(key);
      }
      await tx.objectStore("outbox").delete(accountRange(accountId));
      const sync = tx.objectStore("sync");
      const current = (await sync.get(accountId)) ?? { accountId, cursor: 0, uploaded: true, instructions: NO_INSTRUCTIONS };
      await sync.put({ ...current, cursor: 0, instructions: NO_INSTRUCTIONS });
      await tx.done;
    },
  };
}
