/**
 * Share links, sealing at rest and secret rotation, over real HTTP on the embedded engine and on
 * Postgres: a share opens signed out with nothing of the account in it and stops after revoke; a
 * dump of the database (pg_dump, or every byte of the data folder) holds none of the text; a
 * rotated LWC_SECRET still opens everything, and a foreign one opens nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HistoryLocation } from "@/lib/history/database";
import { createEvidence, findLeakedTokens, signIn, TEST_SECRET, type Harness, type TestClient } from "./harness";
import { answer, ENGINES, pullAll, push, startEngine, startHistoryHarness, textOf, tick, userMessage, type Engine } from "./history-support";

const evidence = createEvidence();
const MARKER = "zq-history-marker-2718";
const ACCOUNT = { accountId: "acct_share_owner_4242", email: "owner@example.com", plan: "pro", userId: "user_share_owner" };
const ROTATED_SECRET = "a-newer-secret-for-rotation-0123456789-xyz";

describe.each(ENGINES)("chat history shares and sealing on %s", (engineName) => {
  let engine: Engine;
  let location: HistoryLocation;
  let harness: Harness;
  let owner: TestClient;

  beforeAll(async () => {
    engine = await startEngine(engineName);
    location = await engine.location();
    harness = await startHistoryHarness(location, { evidence, handler: { loginRateLimit: false } });
    owner = harness.client();
    await signIn(harness, owner, ACCOUNT);
    const image = `data:text/plain;base64,${Buffer.from(`attachment ${MARKER}`).toString("base64")}`;
    await push(owner, {
      conversations: [{ id: "trip", rev: tick(), title: `Title ${MARKER}`, createdAt: tick() }],
      messages: [
        userMessage("trip", "u1", `Question ${MARKER}`, null, { parts: [{ type: "text", text: `Question ${MARKER}` }, { type: "file", mediaType: "text/plain", url: image }] }),
        answer("trip", "a1", `Answer ${MARKER}`, "u1", {
          parts: [
            { type: "reasoning", text: "thinking it over" },
            { type: "text", text: `Answer ${MARKER}`, providerMetadata: { openai: { itemId: "msg_secret_item" } } },
          ],
          metadata: { model: "gpt-5.5", usage: { plan: "pro" } },
        }),
        answer("trip", "a1-again", "Another answer", "u1"),
        userMessage("trip", "u2", "Follow-up on the first answer", "a1"),
        answer("trip", "a2", "Second answer", "u2"),
      ],
    });
    const instructions = await owner.request("PUT", "/history/instructions", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: `Instructions ${MARKER}`, rev: tick() }),
    });
    expect(instructions.status).toBe(200);
  });
  afterAll(async () => {
    await harness?.close();
    await engine?.stop();
  });

  let shareId = "";

  it("shares one branch as a snapshot that opens signed out, with no account, usage, reasoning or provider data", async () => {
    const made = await owner.post("/history/shares", { conversationId: "trip", leafId: "a2" });
    expect(made.status).toBe(201);
    const share = made.json<{ id: string; conversationId: string; createdAt: number }>();
    expect(share).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), conversationId: "trip", createdAt: expect.any(Number) });
    shareId = share.id;

    const stranger = harness.client();
    const read = await stranger.get(`/shared/${shareId}`);
    expect(read.status).toBe(200);
    expect(read.headers.get("x-robots-tag")).toBe("noindex, nofollow");
    expect(read.headers.get("set-cookie")).toBeNull();
    expect(stranger.cookie).toBeUndefined();
    const snapshot = read.json<{ id: string; title: string; messages: { id: string; role: string; parts: { type: string }[] }[] }>();
    expect(snapshot.title).toBe(`Title ${MARKER}`);
    expect(snapshot.messages.map((message) => message.id)).toEqual(["u1", "a1", "u2", "a2"]);
    expect(snapshot.messages[1]!.parts).toEqual([{ type: "text", text: `Answer ${MARKER}` }]);
    for (const hidden of [ACCOUNT.accountId, ACCOUNT.email, "usage", "pro", "msg_secret_item", "thinking it over", "gpt-5.5", "metadata"]) {
      expect(read.text).not.toContain(hidden);
    }
  });

  it("lists the owner's links, and revoking one makes it answer 404 to everyone", async () => {
    const listed = await owner.get("/history/shares");
    expect(listed.json()).toEqual({ shares: [{ id: shareId, conversationId: "trip", createdAt: expect.any(Number) }] });
    expect((await owner.request("DELETE", `/history/shares/${shareId}`)).status).toBe(204);
    const gone = await harness.client().get(`/shared/${shareId}`);
    expect(gone.status).toBe(404);
    expect(gone.json()).toEqual({ error: "share_not_found", message: expect.any(String) });
    expect(gone.headers.get("x-robots-tag")).toBe("noindex, nofollow");
    expect((await owner.request("DELETE", `/history/shares/${shareId}`)).json()).toMatchObject({ error: "history_not_found" });
    expect((await owner.get("/history/shares")).json()).toEqual({ shares: [] });
  });

  it("never lets another account revoke or list a link", async () => {
    const made = (await owner.post("/history/shares", { conversationId: "trip" })).json<{ id: string }>();
    const other = harness.client();
    await signIn(harness, other, { accountId: "acct_someone_else", email: "else@example.com", plan: "plus", userId: "user_else" });
    expect((await other.request("DELETE", `/history/shares/${made.id}`)).status).toBe(404);
    expect((await other.get("/history/shares")).json()).toEqual({ shares: [] });
    expect((await harness.client().get(`/shared/${made.id}`)).status).toBe(200);
    // Without a leafId: the branch of the newest message (a2, written after the regenerated a1-again).
    expect((await harness.client().get(`/shared/${made.id}`)).json<{ messages: { id: string }[] }>().messages.map((m) => m.id)).toEqual(["u1", "a1", "u2", "a2"]);
  });

  it("answers 404 for an unknown conversation or message", async () => {
    expect((await owner.post("/history/shares", { conversationId: "nope" })).json()).toMatchObject({ error: "history_not_found" });
    expect((await owner.post("/history/shares", { conversationId: "trip", leafId: "nope" })).json()).toMatchObject({ error: "history_not_found" });
    expect((await harness.client().get("/shared/AAAAAAAAAAAAAAAAAAAAAA")).status).toBe(404);
  });

  it("keeps no readable text at rest: the dump holds neither the marker nor its base64, nor the account id", async () => {
    const dump = engine.dump(location);
    expect(dump.length).toBeGreaterThan(1000);
    if (engineName === "postgres") expect(dump).toContain("INSERT INTO public.history_messages");
    for (const needle of [MARKER, Buffer.from(`attachment ${MARKER}`).toString("base64"), ACCOUNT.accountId, ACCOUNT.email]) {
      expect(dump.includes(needle), needle).toBe(false);
    }
  });

  it("opens everything after a rotation (new,old), and nothing under a foreign secret", async () => {
    const rotated = await startHistoryHarness(location, { evidence, sharedMock: harness.mock, handler: { secrets: [ROTATED_SECRET, TEST_SECRET] } });
    const foreign = await startHistoryHarness(location, { evidence, sharedMock: harness.mock, handler: { secrets: ["a-foreign-secret-that-opens-nothing-000000"] } });
    try {
      const device = rotated.client();
      await signIn(rotated, device, ACCOUNT);
      const pulled = await pullAll(device);
      expect(pulled.conversations.get("trip")).toMatchObject({ title: `Title ${MARKER}` });
      expect(textOf(pulled.messages.get("trip/a1"))).toBe(`Answer ${MARKER}`);
      expect(pulled.instructions?.text).toBe(`Instructions ${MARKER}`);
      // Written after the rotation: sealed with the new secret, still one account.
      await push(device, { messages: [userMessage("trip", "after", "after the rotation", "a2")] });
      expect(textOf((await pullAll(device)).messages.get("trip/after"))).toBe("after the rotation");

      const stranger = foreign.client();
      await signIn(foreign, stranger, ACCOUNT);
      const nothing = await pullAll(stranger);
      expect(nothing.conversations.size + nothing.messages.size).toBe(0);
    } finally {
      await rotated.close();
      await foreign.close();
    }
  });

  it("leaks no token", () => {
    expect(findLeakedTokens(evidence)).toEqual([]);
  });
});
