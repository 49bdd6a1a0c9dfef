import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";
import { openDB, type IDBPDatabase } from "idb";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openChatDb } from "./chat-db";
import { createHistoryStore } from "./history-store";
import {
  createMemoryConversationStore,
  openConversationStore,
  openIndexedDbConversationStore,
  titleFromText,
  type Conversation,
  type ConversationStore,
} from "./conversation-store";

function conversation(accountId: string, id: string, updatedAt: number, text = "hello"): Conversation {
  return {
    id,
    accountId,
    title: titleFromText(text),
    titleEdited: false,
    pinned: false,
    archived: false,
    createdAt: updatedAt,
    updatedAt,
    messages: [{ id: `${id}-m1`, role: "user", parts: [{ type: "text", text }] }],
  };
}

beforeEach(() => {
  // A fresh, empty IndexedDB for every test (fake-indexeddb/auto provides the other IDB globals).
  globalThis.indexedDB = new IDBFactory();
});
afterEach(() => vi.restoreAllMocks());

describe.each([
  ["IndexedDB", () => openIndexedDbConversationStore()],
  ["in-tab memory", async () => createMemoryConversationStore()],
])("conversation store (%s)", (_name, open: () => Promise<ConversationStore>) => {
  it("lists an account's conversations newest first and reads them back whole", async () => {
    const store = await open();
    await store.save(conversation("acct_a", "c1", 100, "first"));
    await store.save(conversation("acct_a", "c2", 300, "second"));
    await store.save(conversation("acct_a", "c3", 200, "third"));
    expect((await store.list("acct_a")).map((item) => item.id)).toEqual(["c2", "c3", "c1"]);
    expect((await store.get("acct_a", "c3"))?.messages[0]?.parts).toEqual([{ type: "text", text: "third" }]);
  });

  it("keeps accounts apart, even for the same conversation id", async () => {
    const store = await open();
    await store.save(conversation("acct_a", "same", 100, "mine"));
    await store.save(conversation("acct_b", "same", 100, "theirs"));
    expect(await store.list("acct_c")).toEqual([]);
    expect((await store.get("acct_a", "same"))?.title).toBe("mine");
    expect((await store.get("acct_b", "same"))?.title).toBe("theirs");
    await store.forgetAccount("acct_a");
    expect(await store.get("acct_a", "same")).toBeUndefined();
    expect((await store.list("acct_b")).map((item) => item.id)).toEqual(["same"]);
  });

  it("renames and removes", async () => {
    const store = await open();
    await store.save(conversation("acct_a", "c1", 100));
    await store.rename("acct_a", "c1", "Trip plans");
    expect(await store.get("acct_a", "c1")).toMatchObject({ title: "Trip plans", titleEdited: true });
    await store.remove("acct_a", "c1");
    expect(await store.list("acct_a")).toEqual([]);
  });

  it("pins and archives, in the list too, without moving the conversation in time", async () => {
    const store = await open();
    await store.save(conversation("acct_a", "c1", 100));
    await store.save(conversation("acct_a", "c2", 200));
    await store.update("acct_a", "c1", { pinned: true });
    await store.update("acct_a", "c2", { archived: true });
    expect(await store.list("acct_a")).toEqual([
      { id: "c2", title: "hello", updatedAt: 200, pinned: false, archived: true },
      { id: "c1", title: "hello", updatedAt: 100, pinned: true, archived: false },
    ]);
    await store.update("acct_a", "c1", { pinned: false });
    expect(await store.get("acct_a", "c1")).toMatchObject({ pinned: false, archived: false, updatedAt: 100 });
    // An id the account does not have changes nothing.
    await store.update("acct_b", "c1", { pinned: true });
    expect(await store.get("acct_b", "c1")).toBeUndefined();
  });

  it("takes a generated title only while the person has not named the conversation", async () => {
    const store = await open();
    await store.save(conversation("acct_a", "c1", 100, "plan a trip to Kyoto in April"));
    await store.update("acct_a", "c1", { generatedTitle: "Kyoto in April" });
    expect(await store.get("acct_a", "c1")).toMatchObject({ title: "Kyoto in April", titleEdited: false });
    await store.rename("acct_a", "c1", "My trip");
    await store.update("acct_a", "c1", { generatedTitle: "Something else" });
    expect(await store.get("acct_a", "c1")).toMatchObject({ title: "My trip", titleEdited: true });
  });

  it("reads an account's conversations whole, newest first", async () => {
    const store = await open();
    await store.save(conversation("acct_a", "c1", 100, "older"));
    await store.save(conversation("acct_a", "c2", 200, "newer"));
    await store.save(conversation("acct_b", "c3", 300, "not mine"));
    const all = await store.all("acct_a");
    expect(all.map((item) => item.id)).toEqual(["c2", "c1"]);
    expect(all[0]?.messages[0]?.parts).toEqual([{ type: "text", text: "newer" }]);
  });

  it("adds only the conversations the account does not have yet, and leaves present ones untouched", async () => {
    const store = await open();
    await store.save(conversation("acct_a", "kept", 100, "the local copy"));
    const added = await store.addMissing("acct_a", [
      conversation("acct_a", "kept", 500, "an imported copy"),
      conversation("acct_other", "new", 200, "imported"),
    ]);
    expect(added).toEqual(["new"]);
    expect((await store.get("acct_a", "kept"))?.title).toBe("the local copy");
    // Whatever account a file names, an import lands in the account that imports it.
    expect((await store.get("acct_a", "new"))?.accountId).toBe("acct_a");
    expect(await store.get("acct_other", "new")).toBeUndefined();
    expect(await store.addMissing("acct_a", [conversation("acct_a", "new", 900, "again")])).toEqual([]);
    expect((await store.list("acct_a")).map((item) => item.id)).toEqual(["new", "kept"]);
  });

  it("keeps drafts per account and conversation, and forgets them with the account", async () => {
    const store = await open();
    await store.setDraft("acct_a", "c1", "half a thought");
    await store.setDraft("acct_b", "c1", "someone else's");
    expect(await store.getDraft("acct_a", "c1")).toBe("half a thought");
    expect(await store.getDraft("acct_a", "c2")).toBe("");
    await store.setDraft("acct_a", "c1", "");
    expect(await store.getDraft("acct_a", "c1")).toBe("");
    await store.setDraft("acct_a", "new", "draft of a new chat");
    await store.forgetAccount("acct_a");
    expect(await store.getDraft("acct_a", "new")).toBe("");
    expect(await store.getDraft("acct_b", "c1")).toBe("someone else's");
  });
});

describe("the IndexedDB schema", () => {
  /** A conversation as a version without the flags kept it. */
  const withoutFlags = () => {
    const before: Record<string, unknown> = { ...conversation("acct_a", "c1", 100, "from before") };
    delete before.pinned;
    delete before.archived;
    return before;
  };
  const createV1 = (database: IDBPDatabase) => {
    const conversations = database.createObjectStore("conversations", { keyPath: ["accountId", "id"] });
    conversations.createIndex("byAccount", "accountId");
    database.createObjectStore("drafts", { keyPath: ["accountId", "key"] });
  };
  const expectUpgraded = async (kept: Record<string, unknown>) => {
    const db = await openChatDb();
    expect(db.version).toBe(3);
    expect([...db.objectStoreNames].sort()).toEqual(["conversations", "drafts", "outbox", "sync"]);
    const store = await openIndexedDbConversationStore(db);
    expect(await store.get("acct_a", "c1")).toEqual({ ...kept, pinned: kept.pinned === true, archived: false });
    expect(await store.list("acct_a")).toEqual([{ id: "c1", title: "from before", updatedAt: 100, pinned: kept.pinned === true, archived: false }]);
    // The queue for the server works on the upgraded database.
    await store.rename("acct_a", "c1", "Renamed", { queue: true });
    expect((await createHistoryStore(db).pending("acct_a")).map(({ row }) => row.entry.kind)).toEqual(["conversation"]);
    db.close();
  };

  it("upgrades a version 1 database: every conversation is kept, not pinned and not archived", async () => {
    const old = await openDB("lwc-chat", 1, { upgrade: createV1 });
    const before = withoutFlags();
    await old.put("conversations", before);
    old.close();
    await expectUpgraded(before);
  });

  it("upgrades a version 2 database with the queue for the server but no flags", async () => {
    const old = await openDB("lwc-chat", 2, {
      upgrade(database) {
        createV1(database);
        database.createObjectStore("outbox", { keyPath: ["accountId", "key"] });
        database.createObjectStore("sync", { keyPath: "accountId" });
      },
    });
    const before = withoutFlags();
    await old.put("conversations", before);
    old.close();
    await expectUpgraded(before);
  });

  it("upgrades a version 2 database with the flags but no queue (a build that added them first)", async () => {
    const old = await openDB("lwc-chat", 2, { upgrade: createV1 });
    const before = { ...conversation("acct_a", "c1", 100, "from before"), pinned: true };
    await old.put("conversations", before);
    old.close();
    await expectUpgraded(before);
  });
});

describe("openConversationStore", () => {
  it("uses IndexedDB, so a second opening sees what the first saved", async () => {
    const first = await openConversationStore();
    expect(first.persistent).toBe(true);
    await first.save(conversation("acct_a", "c1", 100));
    const second = await openConversationStore();
    expect((await second.list("acct_a")).map((item) => item.id)).toEqual(["c1"]);
  });

  it("falls back to the in-tab store when IndexedDB cannot be opened", async () => {
    // @ts-expect-error simulating a browser without IndexedDB (some private modes, policies)
    delete globalThis.indexedDB;
    const store = await openConversationStore();
    expect(store.persistent).toBe(false);
    await store.save(conversation("acct_a", "c1", 100));
    expect((await store.list("acct_a")).map((item) => item.id)).toEqual(["c1"]);
  });

  it("switches to the in-tab store when a write fails later, and says so", async () => {
    let notified = 0;
    const store = await openConversationStore(() => (notified += 1));
    // The browser's storage refusing a write, as a full quota does.
    vi.spyOn(IDBObjectStore.prototype, "put").mockImplementation(() => {
      throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    });
    await store.save(conversation("acct_a", "c1", 100));
    expect(notified).toBe(1);
    expect(store.persistent).toBe(false);
    await store.save(conversation("acct_a", "c2", 200));
    // The write that failed still landed in the tab, and later ones go there too.
    expect((await store.list("acct_a")).map((item) => item.id)).toEqual(["c2", "c1"]);
  });
});

describe("titleFromText", () => {
  it("uses the first line, shortened at a word", () => {
    expect(titleFromText("  Plan a trip\nwith details")).toBe("Plan a trip");
    expect(titleFromText("")).toBe("New chat");
    const veryLong = "word ".repeat(60);
    expect(titleFromText(veryLong).length).toBeLessThanOrEqual(201);
    expect(titleFromText(veryLong).endsWith("…")).toBe(true);
  });

  it("keeps an ordinary long first line whole (the list shortens it on screen, the rename box shows it all)", () => {
    const question = "How do I plan a two-week trip through Portugal and Spain by train, with a budget of about 2000 euros?";
    expect(question.length).toBeGreaterThan(60);
    expect(titleFromText(`${question}\nMore details follow.`)).toBe(question);
  });
});
