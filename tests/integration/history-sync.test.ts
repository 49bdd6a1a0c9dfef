/**
 * The sync API over real HTTP, on the embedded engine and on Postgres: two devices of one account
 * merge their writes, a resend changes nothing, an edit keeps its branch, deletes reach the other
 * device through the cursor, "delete everything" makes every device start again, and pages stay
 * bounded by count and by bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HistoryLocation } from "@/lib/history/database";
import { createEvidence, findLeakedTokens, signIn, type Harness, type TestClient } from "./harness";
import { answer, ENGINES, pullAll, push, startEngine, startHistoryHarness, textOf, tick, userMessage, type Engine } from "./history-support";

const evidence = createEvidence();
let accounts = 0;

describe.each(ENGINES)("chat history sync on %s", (engineName) => {
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

  /** Two signed-in devices (cookie jars) of one new account. */
  async function twoDevices(): Promise<[TestClient, TestClient]> {
    const n = ++accounts;
    const account = { accountId: `acct_sync_${engineName}_${n}`, email: `sync${n}@example.com`, plan: "plus", userId: `user_sync_${n}` };
    const a = harness.client();
    const b = harness.client();
    await signIn(harness, a, account);
    await signIn(harness, b, account);
    return [a, b];
  }

  it("says where chats are kept in the signed-in state", async () => {
    const [a] = await twoDevices();
    expect((await a.get("/session")).json()).toMatchObject({ status: "authenticated", history: "server" });
  });

  it("keeps both devices' turns when they write one conversation at the same time", async () => {
    const [a, b] = await twoDevices();
    await push(a, { conversations: [{ id: "c1", rev: tick(), title: "Trip to Kyoto", createdAt: tick(), updatedAt: tick() }], messages: [userMessage("c1", "u1", "Plan a trip")] });
    const [fromA, fromB] = await Promise.all([
      push(a, { messages: [userMessage("c1", "a-u2", "From the laptop", "u1"), answer("c1", "a-a2", "Laptop answer", "a-u2")] }),
      push(b, { messages: [userMessage("c1", "b-u2", "From the phone", "u1"), answer("c1", "b-a2", "Phone answer", "b-u2")] }),
    ]);
    expect([...fromA.messages, ...fromB.messages].map((result) => result.status)).toEqual(["applied", "applied", "applied", "applied"]);
    expect(fromA.cursor).not.toBe(fromB.cursor);

    for (const device of [a, b]) {
      const pulled = await pullAll(device);
      expect([...pulled.messages.keys()].sort()).toEqual(["c1/a-a2", "c1/a-u2", "c1/b-a2", "c1/b-u2", "c1/u1"]);
      expect(textOf(pulled.messages.get("c1/b-a2"))).toBe("Phone answer");
      expect(pulled.messages.get("c1/a-u2")).toMatchObject({ parentId: "u1", role: "user" });
      expect(pulled.conversations.get("c1")).toMatchObject({ title: "Trip to Kyoto", deleted: false });
    }
  });

  it("changes nothing when an offline queue sends the same batch again", async () => {
    const [a, b] = await twoDevices();
    const batch = { conversations: [{ id: "c2", rev: tick(), title: "Soup", createdAt: tick() }], messages: [userMessage("c2", "u1", "Soup ideas"), answer("c2", "a1", "Miso", "u1")] };
    const first = await push(a, batch);
    const again = await push(a, batch);
    expect(first.messages.map((result) => result.status)).toEqual(["applied", "applied"]);
    expect(again.conversations).toEqual([{ id: "c2", status: "unchanged" }]);
    expect(again.messages.map((result) => result.status)).toEqual(["unchanged", "unchanged"]);
    expect(again.cursor).toBe(first.cursor);
    const pulled = await pullAll(b);
    expect(pulled.messages.size).toBe(2);
  });

  it("lets a streaming answer grow by rev, and never goes back to an older rev", async () => {
    const [a, b] = await twoDevices();
    const growing = answer("c3", "a1", "Once", "u1");
    await push(a, { messages: [userMessage("c3", "u1", "A story"), growing] });
    const grown = { ...growing, parts: [{ type: "text", text: "Once upon a time" }], rev: growing.rev + 10 };
    expect((await push(a, { messages: [grown] })).messages[0]!.status).toBe("applied");
    // A queued older copy arriving late:
    expect((await push(a, { messages: [growing] })).messages[0]!.status).toBe("unchanged");
    expect(textOf((await pullAll(b)).messages.get("c3/a1"))).toBe("Once upon a time");
  });

  it("keeps an edited question's earlier branch: both versions share a parent", async () => {
    const [a, b] = await twoDevices();
    await push(a, { messages: [userMessage("c4", "u1", "Hi"), answer("c4", "a1", "Hello", "u1"), userMessage("c4", "u2", "Capital of France?", "a1"), answer("c4", "a2", "Paris", "u2"), userMessage("c4", "u3", "And Spain?", "a2")] });
    // The person edits u2 on the phone: a new message beside it, with its own answer.
    await push(b, { messages: [userMessage("c4", "u2-edit", "Capital of Italy?", "a1"), answer("c4", "a2-edit", "Rome", "u2-edit")] });
    const pulled = await pullAll(a);
    const children = (parentId: string) => [...pulled.messages.values()].filter((m) => !m.deleted && m.parentId === parentId).map((m) => m.id).sort();
    expect(children("a1")).toEqual(["u2", "u2-edit"]);
    expect(children("u2")).toEqual(["a2"]);
    expect(children("a2")).toEqual(["u3"]);
    expect(textOf(pulled.messages.get("c4/a2-edit"))).toBe("Rome");
  });

  it("merges conversation fields from two devices by rev, field by field", async () => {
    const [a, b] = await twoDevices();
    const created = tick();
    await push(a, { conversations: [{ id: "c5", rev: tick(), title: "First line", createdAt: created, updatedAt: created }] });
    const pinRev = tick();
    const renameRev = tick();
    // The rename (newer) arrives first, the pin (older, made offline) after it: both stay.
    await push(b, { conversations: [{ id: "c5", rev: renameRev, title: "Renamed", titleEdited: true }] });
    await push(a, { conversations: [{ id: "c5", rev: pinRev, pinned: true }] });
    // An even older rename loses to the newer one.
    expect((await push(a, { conversations: [{ id: "c5", rev: pinRev - 5, title: "Stale" }] })).conversations[0]!.status).toBe("unchanged");
    expect((await pullAll(a)).conversations.get("c5")).toMatchObject({ title: "Renamed", titleEdited: true, pinned: true, archived: false, createdAt: created });
  });

  it("takes a new conversation's title, pin and archive as writes of their own in one push, each group by its own rev", async () => {
    const [a, b] = await twoDevices();
    const created = tick();
    const unpinRev = tick();
    await push(b, { conversations: [{ id: "c5b", rev: unpinRev, pinned: false }] });
    // The browser sends each field group with the rev that set it (lib/client/history-wire.ts):
    // its older pin loses to the other device's unpin, its archive and title are taken.
    const result = await push(a, {
      conversations: [
        { id: "c5b", rev: tick(), title: "Kyoto in April", titleEdited: false, createdAt: created, updatedAt: created },
        { id: "c5b", rev: unpinRev - 1, pinned: true },
        { id: "c5b", rev: tick(), archived: true },
      ],
    });
    expect(result.conversations.map((item) => item.status)).toEqual(["applied", "unchanged", "applied"]);
    expect((await pullAll(b)).conversations.get("c5b")).toMatchObject({ title: "Kyoto in April", titleEdited: false, pinned: false, archived: true });
  });

  it("moves a conversation up the list when a new message arrives", async () => {
    const [a, b] = await twoDevices();
    await push(a, { conversations: [{ id: "c6", rev: tick(), title: "Old", createdAt: 1000, updatedAt: 1000 }] });
    const message = userMessage("c6", "u1", "Back again");
    await push(b, { messages: [message] });
    expect((await pullAll(a)).conversations.get("c6")).toMatchObject({ updatedAt: message.createdAt });
  });

  it("keeps a message whose conversation it never heard of, under a placeholder title", async () => {
    const [a, b] = await twoDevices();
    await push(a, { messages: [userMessage("c7", "u1", "Orphan turn")] });
    const pulled = await pullAll(b);
    expect(pulled.conversations.get("c7")).toMatchObject({ title: "New chat", deleted: false, revs: { title: 0, pinned: 0, archived: 0 } });
    expect(textOf(pulled.messages.get("c7/u1"))).toBe("Orphan turn");
  });

  it("brings a delete to the other device through its cursor, and no later write brings it back", async () => {
    const [a, b] = await twoDevices();
    await push(a, { conversations: [{ id: "gone", rev: tick(), title: "Delete me" }, { id: "kept", rev: tick(), title: "Keep me" }], messages: [userMessage("gone", "u1", "bye"), userMessage("kept", "u1", "stay"), userMessage("kept", "u2", "drop this one", "u1")] });
    const before = await pullAll(b);
    expect(before.conversations.size).toBe(2);

    await push(a, { deletes: { conversations: ["gone"], messages: [{ conversationId: "kept", id: "u2" }] } });
    const after = await pullAll(b, before.cursor);
    expect(after.conversations.get("gone")).toEqual({ id: "gone", seq: expect.any(Number), deleted: true });
    expect(after.messages.get("kept/u2")).toEqual({ conversationId: "kept", id: "u2", seq: expect.any(Number), deleted: true });
    expect(after.messages.has("kept/u1")).toBe(false);

    // The phone, offline meanwhile, sends what it had: the deletes stand.
    const late = await push(b, { conversations: [{ id: "gone", rev: tick(), title: "Back?" }], messages: [userMessage("gone", "u9", "late"), userMessage("kept", "u2", "drop this one", "u1")] });
    expect(late.conversations[0]!.status).toBe("deleted");
    expect(late.messages.map((result) => result.status)).toEqual(["deleted", "deleted"]);
    const fresh = await pullAll(b);
    expect(fresh.conversations.get("gone")).toMatchObject({ deleted: true });
    expect([...fresh.messages.keys()].filter((key) => key.startsWith("gone/"))).toEqual([]);
  });

  it("deletes everything at once, and every device's cursor says start again", async () => {
    const [a, b] = await twoDevices();
    await push(a, { conversations: [{ id: "c8", rev: tick(), title: "One" }], messages: [userMessage("c8", "u1", "x"), userMessage("c9", "u1", "y")] });
    expect((await a.request("PUT", "/history/instructions", { headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "Be brief.", rev: tick() }) })).status).toBe(200);
    const seen = await pullAll(b);
    expect(seen.instructions).toEqual({ text: "Be brief.", rev: expect.any(Number) });

    const cleared = await a.request("DELETE", "/history");
    expect(cleared.status).toBe(200);
    expect(cleared.json()).toEqual({ cursor: expect.any(Number), deleted: { conversations: 2, messages: 2, shares: 0 } });

    const onPhone = await b.get(`/history/changes?since=${seen.cursor}`);
    expect(onPhone.json()).toEqual({ cursor: 0, more: false, restart: "cleared", conversations: [], messages: [] });
    const fromScratch = await pullAll(b);
    expect(fromScratch.conversations.size + fromScratch.messages.size).toBe(0);
    expect(fromScratch.instructions).toBeUndefined();
  });

  it("answers a cursor it never gave out with restart: unknown_cursor", async () => {
    const [a] = await twoDevices();
    expect((await a.get("/history/changes?since=99")).json()).toMatchObject({ restart: "unknown_cursor", cursor: 0 });
    await push(a, { messages: [userMessage("c10", "u1", "x")] });
    expect((await a.get("/history/changes?since=9999999")).json()).toMatchObject({ restart: "unknown_cursor" });
  });

  it("pages by count: every change once, in order, with `more` until the end", async () => {
    const [a, b] = await twoDevices();
    const messages = Array.from({ length: 30 }, (_, i) => userMessage("c11", `m${i}`, `message ${i}`, i === 0 ? null : `m${i - 1}`));
    await push(a, { messages });
    const pulled = await pullAll(b, 0, 7);
    expect(pulled.pages.length).toBeGreaterThanOrEqual(5);
    for (const page of pulled.pages) expect(page.conversations.length + page.messages.length).toBeLessThanOrEqual(7);
    expect(pulled.pages.at(-1)!.more).toBe(false);
    const seqs = pulled.pages.flatMap((page) => [...page.conversations, ...page.messages].map((item) => item.seq));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(pulled.messages.size).toBe(30);
  });

  it("pages by bytes: large messages (images) come a few at a time, under Vercel's 4.5 MB reply limit", async () => {
    const [a, b] = await twoDevices();
    const image = `data:image/png;base64,${Buffer.alloc(900_000, 7).toString("base64")}`;
    for (let i = 0; i < 4; i++) {
      await push(a, { messages: [userMessage("c12", `img${i}`, `picture ${i}`, null, { parts: [{ type: "file", mediaType: "image/png", url: image }, { type: "text", text: `picture ${i}` }] })] });
    }
    const pulled = await pullAll(b);
    expect(pulled.messages.size).toBe(4);
    expect(pulled.pages.length).toBeGreaterThanOrEqual(2);
    for (const page of pulled.pages) expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThan(4_500_000);
    const first = pulled.messages.get("c12/img0");
    expect(first && !first.deleted && (first.parts[0] as { url: string }).url).toBe(image);
  });

  it("keeps accounts apart", async () => {
    const [a] = await twoDevices();
    const [other] = await twoDevices();
    await push(a, { messages: [userMessage("private", "u1", "mine")] });
    const theirs = await pullAll(other);
    expect(theirs.conversations.has("private")).toBe(false);
  });

  it("leaks no token", () => {
    expect(findLeakedTokens(evidence)).toEqual([]);
  });
});
