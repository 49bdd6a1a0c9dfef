import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUpstashStore } from "@/lib/stores/upstash-store";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { startRedisServer, type RedisServer } from "@/test-support/redis-server";
import { startUpstashBridge, type UpstashBridge } from "@/test-support/upstash-bridge";
import { createEvidence, findLeakedTokens, responsesBody, signIn, startHarness, type Harness } from "./harness";

/** Two handler instances (as two server processes would be) sharing one real Redis through Upstash's REST dialect. */
const evidence = createEvidence();
const BRIDGE_TOKEN = "bridge-token-for-tests";
let redis: RedisServer;
let bridge: UpstashBridge;
let mock: MockUpstream;
let a: Harness;
let b: Harness;

function upstashStore() {
  return createUpstashStore({ url: bridge.url, token: BRIDGE_TOKEN, timeoutMs: 1000 });
}

beforeAll(async () => {
  redis = await startRedisServer();
  bridge = await startUpstashBridge({ redisPort: redis.port, token: BRIDGE_TOKEN });
  mock = await startMockUpstream({ streamChunkDelayMs: 0, accessTokenTtlSeconds: 60 });
  // An hour-long window: @upstash/ratelimit uses the real clock, and a burst must not straddle two windows.
  const handler = { responsesProxy: { rateLimit: { limit: 5, windowMs: 3_600_000 } } };
  a = await startHarness({ evidence, sharedMock: mock, handler: { ...handler, sessionStore: upstashStore() } });
  b = await startHarness({ evidence, sharedMock: mock, handler: { ...handler, sessionStore: upstashStore() } });
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await mock?.close();
  await bridge?.close();
  await redis?.dispose();
});
beforeEach(() => mock.setOptions({ accessTokenTtlSeconds: 60 }));

const refreshCalls = () =>
  mock.requests({ path: "/oauth/token" }).filter((r) => (r.body as { grant_type?: string }).grant_type === "refresh_token");

async function signedInOnBoth(accountId: string) {
  const onA = a.client();
  await signIn(a, onA, { accountId });
  const onB = b.client();
  onB.cookie = onA.cookie;
  return { onA, onB };
}

describe("with a shared Upstash store", () => {
  it("a session made on one instance works on the other", async () => {
    const { onB } = await signedInOnBoth("acct_shared");
    expect((await onB.get("/session")).json()).toMatchObject({ status: "authenticated", user: { accountId: "acct_shared" } });
  });

  it("refreshes a login exactly once when both instances need it at the same time", async () => {
    const { onA, onB } = await signedInOnBoth("acct_race");
    mock.setOptions({ accessTokenTtlSeconds: 3600 });
    const before = refreshCalls().length;
    // /status refreshes near expiry as /models does, and has no per-session limit.
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? onA : onB).get("/status")));
    replies.forEach((reply) => expect(reply.status).toBe(200));
    expect(refreshCalls().length).toBe(before + 1);
    expect((await onA.get("/session")).json().status).toBe("authenticated");
  });

  it("rate limits /responses per session across instances", async () => {
    const { onA, onB } = await signedInOnBoth("acct_limit");
    mock.setOptions({ accessTokenTtlSeconds: 3600 });
    await onA.get("/models");
    await onB.get("/models");
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? onA : onB).post("/responses", responsesBody())));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(5);
    expect(replies.filter((reply) => reply.status === 429)).toHaveLength(7);
  });

  it("uses two store commands before the upstream call when no refresh is needed: session read and rate limit", async () => {
    mock.setOptions({ accessTokenTtlSeconds: 3600 });
    const client = a.client();
    await signIn(a, client, { accountId: "acct_budget" });
    await client.get("/models");
    expect((await client.post("/responses", responsesBody())).status).toBe(200);
    const before = bridge.commandNames().length;
    expect((await client.post("/responses", responsesBody())).status).toBe(200);
    const commands = bridge.commandNames().slice(before);
    expect(commands).toHaveLength(2);
    expect(commands[0]).toBe("GET");
    expect(commands[1]).toMatch(/^EVAL/);
  });

  it("answers 503 store_unavailable on every route while Redis is down, then recovers", async () => {
    const { onA } = await signedInOnBoth("acct_outage");
    await redis.stop();
    try {
      for (const [method, path] of [
        ["POST", "/login"],
        ["GET", "/status"],
        ["GET", "/session"],
        ["GET", "/models"],
        ["POST", "/responses"],
        ["POST", "/logout"],
      ] as const) {
        const reply = await onA.request(method, path, {
          headers: { "content-type": "application/json" },
          ...(method === "POST" ? { body: JSON.stringify(responsesBody()) } : {}),
        });
        expect(reply.status, `${method} ${path}`).toBe(503);
        expect(reply.json()).toEqual({ error: "store_unavailable", message: expect.any(String) });
        expect(reply.headers.get("cache-control")).toBe("no-store");
      }
      expect(a.evidence.logs.some((line) => line.message.includes("session store unavailable"))).toBe(true);
    } finally {
      await redis.start();
    }
    // A fresh Redis has no sessions: the instance answers again instead of crashing.
    expect((await onA.get("/session")).json()).toEqual({ status: "unauthenticated" });
  });
});

it("never leaks a token into a response body or a log line", () => {
  expect(evidence.issuedTokens.size).toBeGreaterThan(0);
  expect(findLeakedTokens(evidence)).toEqual([]);
});
