import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";
import { beforeEach, describe, expect, it } from "vitest";
import { openChatDb } from "./chat-db";
import type { ChatUIMessage } from "./chat-turns";
import type { LocalSave } from "./conversation-record";
import { openIndexedDbConversationStore, type ConversationStore } from "./conversation-store";
import { createHistoryStore, type HistoryLocalStore } from "./history-store";

const user = (id: string, text = id): ChatUIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const save = (path: ChatUIMessage[], removedIds: string[] = []): LocalSave => ({ path, title: "", titleEdited: false, createdAt: 1, removedIds });
const ACCOUNT = "acct_a";

let store: ConversationStore;
let local: HistoryLocalStore;
beforeEach(async () => {
  globalThis.indexedDB = new IDBFactory();
  const db = await openChatDb();
  store = await openIndexedDbConversationStore(db);
  local = createHistoryStore(db);
});

const queued = async () => (await local.pending(ACCOUNT)).map(({ row, item }) => [row.entry.kind, item?.kind ?? "nothing"]);

describe("the queue for the server", () => {
  it("queues what a save changed, only when asked, and sends each message once with its latest content", async () => {
    await store.saveBranch(ACCOUNT, "c1", save([user("q1", "draft")]));
    expect(await queued()).toEqual([]);
    await store.saveBranch(ACCOUNT, "c1", save([user("q1"), user("q2", "one")]), { queue: true });
    await store.saveBranch(ACCOUNT, "c1", save([user("q1"), user("q2", "two")]), { queue: true });
    const pending = await local.pending(ACCOUNT);
    expect(pending.map(({ row }) => row.entry.kind)).toEqual(["conversation", "message", "message"]);
    const q2 = pending.find(({ row }) => row.entry.kind === "message" && row.entry.messageId === "q2")?.item;
    expect(q2?.kind === "message" && q2.write.parts).toEqual([{ type: "text", text: "two" }]);
  });

  it("a pin, an archive or a generated title queues the conversation like a rename, each group with a rev of its own", async () => {
    await store.saveBranch(ACCOUNT, "c1", save([user("q1", "plan a trip")]));
    const titleRev = (await store.get(ACCOUNT, "c1"))!.revs!.title!;
    await store.update(ACCOUNT, "c1", { pinned: true });
    expect(await queued()).toEqual([]);
    await store.update(ACCOUNT, "c1", { pinned: true }, { queue: true });
    // Pinned already: nothing changed, nothing queued.
    expect(await queued()).toEqual([]);
    await store.update(ACCOUNT, "c1", { archived: true, generatedTitle: "Trip" }, { queue: true });
    const [pending] = await local.pending(ACCOUNT);
    const kept = (await store.get(ACCOUNT, "c1"))!;
    expect(kept).toMatchObject({ title: "Trip", titleEdited: false, pinned: true, archived: true });
    // The generated title's rev is one above the first line's; the flags' are the time they were set.
    expect(kept.revs?.title).toBe(titleRev + 1);
    expect(pending?.item).toEqual({
      kind: "conversation",
      writes: [
        { id: "c1", rev: titleRev + 1, createdAt: 1, updatedAt: kept.updatedAt, title: "Trip", titleEdited: false },
        { id: "c1", rev: kept.revs!.pinned, pinned: true },
        { id: "c1", rev: kept.revs!.archived, archived: true },
      ],
    });
    await store.rename(ACCOUNT, "c1", "Mine", { queue: true });
    await store.update(ACCOUNT, "c1", { generatedTitle: "Other" }, { queue: true });
    expect((await store.get(ACCOUNT, "c1"))?.title).toBe("Mine");
  });

  it("an entry queued again while its push was on the way stays queued", async () => {
    await store.saveBranch(ACCOUNT, "c1", save([user("q1"), user("q2", "one")]), { queue: true });
    const sent = await local.pending(ACCOUNT);
    await store.saveBranch(ACCOUNT, "c1", save([user("q1"), user("q2", "one, edited")]), { queue: true });
    await local.ack(ACCOUNT, sent.map(({ row }) => row));
    expect(await queued()).toEqual([["message", "message"]]);
  });

  it("a conversation's delete replaces what was queued for it; a message's delete replaces its write", async () => {
    await store.saveBranch(ACCOUNT, "c1", save([user("q1"), user("q2")]), { queue: true });
    await store.saveBranch(ACCOUNT, "c1", save([user("q1")], ["q2"]), { queue: true });
    expect(await queued()).toEqual([
      ["conversation", "conversation"],
      ["message", "message"],
      ["delete-message", "delete-message"],
    ]);
    await store.remove(ACCOUNT, "c1", { queue: true });
    expect(await queued()).toEqual([["delete-conversation", "delete-conversation"]]);
  });

  it("a queued delete keeps a page from the server bringing the conversation back", async () => {
    await store.saveBranch(ACCOUNT, "c1", save([user("q1")]), { queue: true });
    await store.remove(ACCOUNT, "c1", { queue: true });
    const changed = await local.applyPage(ACCOUNT, {
      cursor: 5,
      more: false,
      conversations: [],
      messages: [{ conversationId: "c1", id: "q1", deleted: false, parentId: null, role: "user", parts: [{ type: "text", text: "q1" }], createdAt: 1, rev: 99 }],
    });
    expect(changed).toEqual([]);
    expect(await store.get(ACCOUNT, "c1")).toBeUndefined();
    expect((await local.state(ACCOUNT)).cursor).toBe(5);
  });

  it("forgetting the account drops its queue and how far it had synced", async () => {
    await store.saveBranch(ACCOUNT, "c1", save([user("q1")]), { queue: true });
    await local.setState(ACCOUNT, { cursor: 7, uploaded: true });
    await store.forgetAccount(ACCOUNT);
    expect(await queued()).toEqual([]);
    expect(await local.state(ACCOUNT)).toMatchObject({ cursor: 0, uploaded: false });
  });
});
