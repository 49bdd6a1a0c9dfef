/**
 * Agent voice limits, each answered before anything is spawned: the request body size (the one
 * realtime setting), the caps per ChatGPT account and per server instance, at most two processes
 * starting up at once, at most four event streams per live session, and the voice throttle shared
 * with POST /realtime.
 */
import { afterAll, describe, expect, it, vi } from "vitest";
import type { FakeLogEntry } from "@/test-support/fake-app-server/control";
import { TestBrowserPeer } from "@/mock-upstream/voice/test-browser-peer";
import { createRateLimiter, type RateLimiterFactory } from "@/lib/stores/rate-limit";
import { StoreUnavailableError } from "@/lib/stores/types";
import { signIn, type TestClient, type TestReply } from "./harness";
import { OFFER_SDP, openEvents, startAgentHarness, waitForExit, finishAgentHarnessAfterEach, type AgentHarness } from "./app-server-harness";

let h: AgentHarness | undefined;
finishAgentHarnessAfterEach(
  () => h,
  () => (h = undefined),
);
const peers: TestBrowserPeer[] = [];
afterAll(async () => {
  await Promise.all(peers.map((peer) => peer.close()));
});

const start = "/realtime/app-server";
const startBody = { sdp: OFFER_SDP, session: { voice: "cove" } };

async function signedInAs(accountId: string): Promise<TestClient> {
  const client = h!.client();
  await signIn(h!, client, { accountId, email: `${accountId}@example.com` });
  return client;
}

async function hangUp(client: TestClient, reply: TestReply): Promise<void> {
  await client.request("DELETE", `${start}/${reply.json<{ sessionId: string }>().sessionId}`);
}

function expectBusy(reply: TestReply, status: 429 | 503): void {
  expect(reply.status).toBe(status);
  const body = reply.json<{ retryAfterSeconds: number }>();
  expect(body).toEqual({ error: "realtime_busy", message: expect.any(String), retryAfterSeconds: expect.any(Number) });
  expect(body.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(reply.headers.get("retry-after")).toBe(String(body.retryAfterSeconds));
}

describe("the request body limit: LWC_REALTIME_MAX_REQUEST_BYTES bounds every realtime route", () => {
  it("a 40 KB body under a 32 KB setting is 413 on the start, the confirmation and POST /realtime", async () => {
    vi.stubEnv("LWC_SECRET", "app-server-limits-test-secret-0123456789abcdef");
    const { optionsFromEnv } = await import("@/lib/provider-app");
    vi.unstubAllEnvs();
    const fromEnv = optionsFromEnv({ LWC_REALTIME_MAX_REQUEST_BYTES: "32768", LWC_CODEX_COMMAND: "codex" });
    h = await startAgentHarness({ handler: { realtime: { ...fromEnv.realtime, rateLimit: false } } });
    const client = await h.signedIn();
    const padding = "a=x\r\n".repeat(8 * 1024); // 40 KB
    const tooLarge = { error: "realtime_request_too_large", maxRequestBytes: 32_768 };

    const bigStart = await client.post(start, { sdp: OFFER_SDP + padding, session: { voice: "cove" } });
    expect(bigStart.status).toBe(413);
    expect(bigStart.json()).toEqual(tooLarge);
    expect(await h.pids()).toEqual([]);

    const { sessionId } = await h.startLive(client);
    const bigConfirm = await client.post(`${start}/${sessionId}/confirm`, { callId: "c", confirmation: { approved: true }, pad: padding });
    expect(bigConfirm.status).toBe(413);
    expect(bigConfirm.json()).toEqual(tooLarge);

    const bigRealtime = await client.post("/realtime", { sdp: OFFER_SDP + padding });
    expect(bigRealtime.status).toBe(413);
    expect(bigRealtime.json()).toEqual(tooLarge);
    await client.request("DELETE", `${start}/${sessionId}`);
  });
});

describe("caps, answered before anything is spawned", () => {
  it("per ChatGPT account, across its sign-ins: 2 by default, then 429 realtime_busy with retry-after; a login replacing its own session still may", async () => {
    h = await startAgentHarness();
    const [first, second, third] = [await signedInAs("acct_shared"), await signedInAs("acct_shared"), await signedInAs("acct_shared")];
    const a = await first!.post(start, startBody);
    const b = await second!.post(start, startBody);
    expect([a.status, b.status]).toEqual([201, 201]);
    const spawned = (await h.pids()).length;
    expectBusy(await third!.post(start, startBody), 429);
    expect((await h.pids()).length).toBe(spawned);
    // A new start of a login that already has its live session replaces it: still 2.
    const again = await first!.post(start, startBody);
    expect(again.status).toBe(201);
    // Another account is not affected.
    const other = await signedInAs("acct_other");
    const c = await other.post(start, startBody);
    expect(c.status).toBe(201);
    await hangUp(first!, again);
    await hangUp(second!, b);
    await hangUp(other, c);
  });

  it("per server instance (maxSessions): 503 realtime_busy with retry-after, nothing spawned", async () => {
    h = await startAgentHarness({ agentVoice: { maxSessions: 2 } });
    const users = [await signedInAs("acct_i1"), await signedInAs("acct_i2"), await signedInAs("acct_i3")];
    const a = await users[0]!.post(start, startBody);
    const b = await users[1]!.post(start, startBody);
    expect([a.status, b.status]).toEqual([201, 201]);
    const spawned = (await h.pids()).length;
    expectBusy(await users[2]!.post(start, startBody), 503);
    expect((await h.pids()).length).toBe(spawned);
    // Room again once one ends.
    await hangUp(users[0]!, a);
    const c = await users[2]!.post(start, startBody);
    expect(c.status).toBe(201);
    await hangUp(users[1]!, b);
    await hangUp(users[2]!, c);
  });

  it("at most 2 processes start up at once; the others wait their turn and still start", async () => {
    h = await startAgentHarness({ script: { initializeDelayMs: 300 } });
    const users = await Promise.all(["acct_p1", "acct_p2", "acct_p3", "acct_p4", "acct_p5"].map((id) => signedInAs(id)));
    const replies = await Promise.all(users.map((user) => user.post(start, startBody)));
    expect(replies.map((reply) => reply.status)).toEqual([201, 201, 201, 201, 201]);
    expect(mostStartingAtOnce(await h.fake.log())).toBe(2);
    await Promise.all(replies.map((reply, i) => hangUp(users[i]!, reply)));
  });
});

/** From the fake's log (one file, in order): how many processes were spawned and not yet initialised at once. */
function mostStartingAtOnce(log: FakeLogEntry[]): number {
  let starting = 0;
  let most = 0;
  for (const entry of log) {
    if (entry.type === "spawned") starting += 1;
    const result = entry.message?.result as { userAgent?: unknown } | undefined;
    if (entry.dir === "out" && result?.userAgent !== undefined) starting -= 1;
    most = Math.max(most, starting);
  }
  return most;
}

describe("event streams per live session", () => {
  it("a fifth stream closes the oldest; the other four keep getting events", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const streams = [];
    for (let i = 0; i < 5; i += 1) {
      const stream = await openEvents(client, sessionId);
      await stream.next((event) => event.type === "session.started");
      streams.push(stream);
    }
    // The oldest ends (without session.closed: the session goes on); a reloaded tab is never locked out.
    const oldest = await streams[0]!.rest();
    expect(oldest.map((event) => event.type)).toEqual(["session.started"]);
    await h.fake.send({ do: "handoff", transcript: "are you there" });
    for (const stream of streams.slice(1)) {
      expect(await stream.next((event) => event.type === "handoff")).toMatchObject({ transcript: "are you there" });
      stream.close();
    }
    const pid = await h.livePid();
    await client.request("DELETE", `${start}/${sessionId}`);
    await waitForExit(pid);
  });
});

describe("the voice throttle counts POST /realtime and agent starts together", () => {
  it("past realtime.rateLimit, either route answers 429 rate_limited with retry-after, and nothing is spawned", async () => {
    h = await startAgentHarness({ handler: { realtime: { rateLimit: { limit: 3, windowMs: 60_000 } } } });
    h.clock.alignToWindowStart(60_000);
    const client = await h.signedIn();
    const peer = new TestBrowserPeer();
    peers.push(peer);
    expect((await client.post("/realtime", { sdp: await peer.offer() })).status).toBe(201);
    const first = await client.post(start, startBody);
    expect(first.status).toBe(201);
    const second = await client.post(start, startBody);
    expect(second.status).toBe(201);
    const spawned = (await h.pids()).length;
    for (const refused of [await client.post(start, startBody), await client.post("/realtime", { sdp: await peer.offer() })]) {
      expect(refused.status).toBe(429);
      const { retryAfterSeconds } = refused.json<{ retryAfterSeconds: number }>();
      expect(refused.json()).toEqual({ error: "rate_limited", retryAfterSeconds: expect.any(Number) });
      expect(refused.headers.get("retry-after")).toBe(String(retryAfterSeconds));
    }
    expect((await h.pids()).length).toBe(spawned);
    await hangUp(client, second);
  });
});

describe("the throttle's store unreachable", () => {
  it("answers 503 store_unavailable on both voice routes (fails closed), nothing spawned", async () => {
    const storeDown: RateLimiterFactory = (store, options) =>
      options.purpose === "realtime"
        ? { limit: () => Promise.reject(new StoreUnavailableError("the store did not answer")) }
        : createRateLimiter(store, options);
    h = await startAgentHarness({ handler: { createRateLimiter: storeDown } });
    const client = await h.signedIn();
    for (const path of [start, "/realtime"]) {
      const reply = await client.post(path, startBody);
      expect(reply.status, path).toBe(503);
      expect(reply.json()).toMatchObject({ error: "store_unavailable" });
    }
    expect(await h.pids()).toEqual([]);
  });
});

describe("session.model of an agent start is the Codex (text) model", () => {
  it("stays checked against the text-model list, not the voice-model allow-list", async () => {
    h = await startAgentHarness({ handler: { realtime: { allowedModels: ["gpt-realtime-1.5"] } } });
    const client = await h.signedIn();
    const reply = await client.post(start, { sdp: OFFER_SDP, session: { voice: "cove", model: "gpt-5.5" } });
    expect(reply.status).toBe(201);
    await hangUp(client, reply);
    const refused = await client.post(start, { sdp: OFFER_SDP, session: { voice: "cove", model: "gpt-realtime-1.5" } });
    expect(refused.status).toBe(403);
    expect(refused.json()).toEqual({ error: "realtime_model_not_allowed", model: "gpt-realtime-1.5" });
  });
});
