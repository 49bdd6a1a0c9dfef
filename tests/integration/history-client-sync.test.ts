/**
 * The browser's sync (lib/client: the IndexedDB copy, its queue for the server, one round of push
 * and pull) against the real server over HTTP, on both engines. Each device is its own IndexedDB
 * (fake-indexeddb) and its own session cookie; two tabs of a device share its database.
 */
import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openChatDb } from "@/lib/client/chat-db";
import type { ChatUIMessage } from "@/lib/client/chat-turns";
import { treeOfConversation, type LocalSave } from "@/lib/client/conversation-record";
import { openIndexedDbConversationStore, type Conversation, type ConversationStore } from "@/lib/client/conversation-store";
import { createHistoryApi, type HistoryApi } from "@/lib/client/history-api";
import { createHistoryStore, type HistoryLocalStore } from "@/lib/client/history-store";
import { syncRound, type SyncRound } from "@/lib/client/history-sync";
import { versionPositions } from "@/lib/client/message-tree";
import type { HistoryLocation } from "@/lib/history/database";
import { createEvidence, signIn, type Harness, type TestClient } from "./harness";
import { ENGINES, startEngine, startHistoryHarness, type Engine } from "./history-support";

const evidence = createEvidence();
let accounts = 0;

const user = (id: string, text: string): ChatUIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const answer = (id: string, text: string): ChatUIMessage => ({ id, role: "assistant", parts: [{ type: "text", text }], metadata: { model: "gpt-5.5" } });
const texts = (conversation: Conversation | undefined) => conversation?.messages.map((message) => (message.parts[0] as { text: string }).text);
const saveOf = (path: ChatUIMessage[], removedIds: string[] = []): LocalSave => ({ path, title: "", titleEdited: false, createdAt: Date.now(), removedIds });

/** The page's calls through this client's cookie; `offline` makes them fail as a dropped network does. */
function fetchThrough(client: TestClient, network: { offline: boolean }): typeof fetch {
  return (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    if (network.offline) throw new TypeError("fetch failed");
    return client.raw(init.method ?? "GET", String(input), { headers: init.headers as Record<string, string>, body: init.body as string | undefined });
  }) as typeof fetch;
}

interface Device {
  tabs: [ConversationStore, ConversationStore];
  local: HistoryLocalStore;
  api: HistoryApi;
  network: { offline: boolean };
  sync(): Promise<SyncRound>;
  read(id: string): Promise<Conversation | undefined>;
}

describe.each(ENGINES)("the browser's sync on %s", (engineName) => {
  let engine: Engine;
  let location: HistoryLocation;
  let harness: Harness;

  beforeAll(async () => {
    engine = await startEngine(engineName);
    location = await engine.location();
    harness = await startHistoryHarness(location, { evidence, handler: { loginRateLimit: false } });
  });
  afterAll(async () => {
    await harness?.close();
    await engine?.stop();
  });

  let accountId = "";
  function newAccount() {
    const n = ++accounts;
    accountId = `acct_client_${engineName}_${n}`;
    return { accountId, email: `client${n}@example.com`, plan: "plus", userId: `user_client_${n}` };
  }

  /** A signed-in browser of the account: its own IndexedDB, two tabs on it. */
  async function device(account: ReturnType<typeof newAccount>, before?: (store: ConversationStore) => Promise<void>): Promise<Device> {
    const client = harness.client();
    await signIn(harness, client, account);
    globalThis.indexedDB = new IDBFactory();
    const db = await openChatDb();
    const tabs: [ConversationStore, ConversationStore] = [await openIndexedDbConversationStore(db), await openIndexedDbConversationStore(await openChatDb())];
    await before?.(tabs[0]);
    const local = createHistoryStore(db);
    const network = { offline: false };
    const api = createHistoryApi({ basePath: "", fetch: fetchThrough(client, network) });
    return { tabs, local, api, network, sync: () => syncRound({ api, local, accountId: account.accountId }), read: (id) => tabs[0].get(account.accountId, id) };
  }

  it("a chat made on one device appears on the other with its answer, and continued there comes back", async () => {
    const account = newAccount();
    const laptop = await device(account);
    const phone = await device(account);
    await laptop.tabs[0].saveBranch(accountId, "c1", saveOf([user("q1", "Plan a trip to Kyoto"), answer("a1", "Start in Higashiyama")]), { queue: true });
    await laptop.sync();
    const round = await phone.sync();
    expect(round.changed).toEqual(["c1"]);
    expect(texts(await phone.read("c1"))).toEqual(["Plan a trip to Kyoto", "Start in Higashiyama"]);
    expect((await phone.read("c1"))?.title).toBe("Plan a trip to Kyoto");

    const onPhone = (await phone.read("c1"))!.messages;
    await phone.tabs[0].saveBranch(accountId, "c1", saveOf([...onPhone, user("q2", "And Nara?"), answer("a2", "A day trip")]), { queue: true });
    await phone.sync();
    await laptop.sync();
    expect(texts(await laptop.read("c1"))).toEqual(["Plan a trip to Kyoto", "Start in Higashiyama", "And Nara?", "A day trip"]);
    expect(treeOfConversation((await laptop.read("c1"))!).tree.nodes.get("q2")?.link.parentId).toBe("a1");
  });

  it("two tabs sending to one conversation at once both keep their turns, on both devices", async () => {
    const account = newAccount();
    const laptop = await device(account);
    const phone = await device(account);
    const start = [user("q1", "hi"), answer("a1", "hello")];
    await laptop.tabs[0].saveBranch(accountId, "c1", saveOf(start), { queue: true });
    // Neither tab has seen the other's turn when it sends.
    await Promise.all([
      laptop.tabs[0].saveBranch(accountId, "c1", saveOf([...start, user("qA", "from tab A"), answer("aA", "answer A")]), { queue: true }),
      laptop.tabs[1].saveBranch(accountId, "c1", saveOf([...start, user("qB", "from tab B"), answer("aB", "answer B")]), { queue: true }),
    ]);
    await laptop.sync();
    await phone.sync();
    for (const copy of [await laptop.read("c1"), await phone.read("c1")]) {
      const { tree, path } = treeOfConversation(copy!);
      expect([...tree.nodes.keys()].sort()).toEqual(["a1", "aA", "aB", "q1", "qA", "qB"]);
      const shownQuestion = path[2]!.id;
      expect(versionPositions(tree, path, 0).get(shownQuestion)?.count).toBe(2);
    }
  });

  it("an edit keeps its branch on the other device; a delete reaches it", async () => {
    const account = newAccount();
    const laptop = await device(account);
    const phone = await device(account);
    await laptop.tabs[0].saveBranch(accountId, "c1", saveOf([user("q1", "first"), answer("a1", "one")]), { queue: true });
    await laptop.tabs[0].saveBranch(accountId, "c1", saveOf([user("q1b", "first, edited"), answer("a1b", "uno")]), { queue: true });
    await laptop.tabs[0].saveBranch(accountId, "c2", saveOf([user("x1", "to delete")]), { queue: true });
    await laptop.sync();
    await phone.sync();
    const { tree, path } = treeOfConversation((await phone.read("c1"))!);
    expect(path.map((message) => message.id)).toEqual(["q1b", "a1b"]);
    expect(versionPositions(tree, path, 0).get("q1b")).toEqual({ index: 1, count: 2 });
    expect(await phone.read("c2")).toBeDefined();

    await laptop.tabs[0].remove(accountId, "c2", { queue: true });
    await laptop.sync();
    expect((await phone.sync()).changed).toEqual(["c2"]);
    expect(await phone.read("c2")).toBeUndefined();
    // A stale tab's late write does not bring it back.
    await phone.tabs[1].saveBranch(accountId, "c2", saveOf([user("x1", "to delete"), answer("x2", "late")]), { queue: true });
    await phone.sync();
    await laptop.sync();
    expect(await laptop.read("c2")).toBeUndefined();
  });

  it("writes made offline wait in the queue and go up once the server is reachable; a resend changes nothing", async () => {
    const account = newAccount();
    const laptop = await device(account);
    const phone = await device(account);
    laptop.network.offline = true;
    await laptop.tabs[0].saveBranch(accountId, "c1", saveOf([user("q1", "offline question")]), { queue: true });
    await laptop.tabs[0].saveBranch(accountId, "c1", saveOf([user("q1", "offline question"), answer("a1", "offline answer")]), { queue: true });
    await expect(laptop.sync()).rejects.toThrow("fetch failed");
    expect((await laptop.local.pending(accountId)).map(({ row }) => row.entry.kind)).toEqual(["conversation", "message", "message"]);

    laptop.network.offline = false;
    await laptop.sync();
    expect(await laptop.local.pending(accountId)).toEqual([]);
    await phone.sync();
    expect(texts(await phone.read("c1"))).toEqual(["offline question", "offline answer"]);

    // The same writes again (a queue that lost its acknowledgement) are answered `unchanged`.
    const node = treeOfConversation((await laptop.read("c1"))!).tree.nodes.get("a1")!;
    const resend = await laptop.api.push({ messages: [{ conversationId: "c1", id: "a1", parentId: "q1", role: "assistant", parts: node.message.parts, createdAt: node.link.createdAt, rev: node.link.rev }] });
    expect(resend.messages[0]?.status).toBe("unchanged");
  });

  it("on the first sync, conversations this browser kept before go up, and say how many", async () => {
    const account = newAccount();
    // Pinned by a version of the app that kept no revs: the pin goes up with the conversation's time.
    const before = { id: "old1", accountId: account.accountId, title: "Kept before", titleEdited: false, pinned: true, archived: false, createdAt: 1000, updatedAt: 2000, messages: [user("o1", "an old question"), answer("o2", "an old answer")] };
    const laptop = await device(account, (store) => store.save(before));
    const round = await laptop.sync();
    expect(round.uploaded).toBe(1);
    expect((await laptop.sync()).uploaded).toBe(0);
    const phone = await device(account);
    await phone.sync();
    expect(texts(await phone.read("old1"))).toEqual(["an old question", "an old answer"]);
    expect(await phone.read("old1")).toMatchObject({ pinned: true, archived: false });
  });

  it("deleting everything on the server clears every device's copy at its next sync", async () => {
    const account = newAccount();
    const laptop = await device(account);
    const phone = await device(account);
    await laptop.tabs[0].saveBranch(accountId, "c1", saveOf([user("q1", "soon gone")]), { queue: true });
    await laptop.sync();
    await phone.sync();
    expect(await laptop.api.deleteEverything()).toMatchObject({ conversations: 1, messages: 1 });
    for (const copy of [laptop, phone]) {
      expect((await copy.sync()).cleared).toBe(true);
      expect(await copy.read("c1")).toBeUndefined();
    }
    // Both keep going from there.
    await phone.tabs[0].saveBranch(accountId, "c3", saveOf([user("n1", "new start")]), { queue: true });
    await phone.sync();
    await laptop.sync();
    expect(texts(await laptop.read("c3"))).toEqual(["new start"]);
  });

  it("a cursor this server never gave sends this browser's copy up again", async () => {
    const account = newAccount();
    const laptop = await device(account);
    await laptop.tabs[0].saveBranch(accountId, "c1", saveOf([user("q1", "kept")]), { queue: false });
    await laptop.local.setState(accountId, { uploaded: true, cursor: 999_999 });
    const round = await laptop.sync();
    expect(round.uploaded).toBe(1);
    const phone = await device(account);
    await phone.sync();
    expect(texts(await phone.read("c1"))).toEqual(["kept"]);
  });

  it("a message the server will not take stays in this browser; the rest go up", async () => {
    const account = newAccount();
    const laptop = await device(account);
    const phone = await device(account);
    const refused: ChatUIMessage = { id: "bad", role: "user", parts: [{ type: "file", mediaType: "image/png", url: "https://example.com/cat.png" }] };
    await laptop.tabs[0].saveBranch(accountId, "c1", saveOf([user("q1", "fine"), refused, answer("a1", "also fine")]), { queue: true });
    await laptop.sync();
    expect(await laptop.local.pending(accountId)).toEqual([]);
    await phone.sync();
    expect(texts(await phone.read("c1"))).toEqual(["fine", "also fine"]);
  });

  it("a pin, an archive and a generated title reach the other device and tab like a rename, each group by its own rev", async () => {
    const account = newAccount();
    const laptop = await device(account);
    const phone = await device(account);
    await laptop.tabs[0].saveBranch(accountId, "c1", saveOf([user("q1", "plan a trip to Kyoto in April"), answer("a1", "Start in Higashiyama")]), { queue: true });
    await laptop.tabs[0].update(accountId, "c1", { generatedTitle: "Kyoto in April", pinned: true }, { queue: true });
    // The other tab of the laptop reads the same database at once.
    expect(await laptop.tabs[1].get(accountId, "c1")).toMatchObject({ title: "Kyoto in April", titleEdited: false, pinned: true });
    await laptop.sync();
    await phone.sync();
    expect(await phone.read("c1")).toMatchObject({ title: "Kyoto in April", titleEdited: false, pinned: true, archived: false });

    // A save on the phone keeps the generated title (the conversation has its answer).
    const onPhone = (await phone.read("c1"))!.messages;
    await phone.tabs[0].saveBranch(accountId, "c1", saveOf([...onPhone, user("q2", "And Nara?")]), { queue: true });
    expect((await phone.read("c1"))?.title).toBe("Kyoto in April");

    // Offline, the laptop archives; meanwhile the phone unpins and renames. All three stay.
    laptop.network.offline = true;
    await laptop.tabs[0].update(accountId, "c1", { archived: true }, { queue: true });
    await phone.tabs[0].update(accountId, "c1", { pinned: false }, { queue: true });
    await phone.tabs[0].rename(accountId, "c1", "Spring trip", { queue: true });
    await phone.sync();
    // A title generated later on a device that has not heard of the rename loses to it.
    await laptop.tabs[0].update(accountId, "c1", { generatedTitle: "Kyoto and Nara" }, { queue: true });
    laptop.network.offline = false;
    await laptop.sync();
    await phone.sync();
    for (const read of [laptop.read, phone.read]) {
      expect(await read("c1")).toMatchObject({ title: "Spring trip", titleEdited: true, pinned: false, archived: true });
    }
  });
});
