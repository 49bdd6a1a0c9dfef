import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RateLimiterOptions } from "@/lib/stores/rate-limit";
import type { KeyValueStore, RateLimiter, RateLimitPurpose } from "@/lib/stores/types";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { createEvidence, findLeakedTokens, responsesBody, signIn, startHarness } from "./harness";

const evidence = createEvidence();
let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream();
});
afterAll(() => mock.close());

/** A store of one's own: a plain Map with TTLs, none of the built-in stores' internals. */
function createMapStore(): KeyValueStore & { keys(): string[] } {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) entries.delete(key);
    return entries.get(key);
  };
  return {
    kind: "custom",
    keys: () => [...entries.keys()],
    async get(key) {
      return live(key)?.value ?? null;
    },
    async set(key, value, ttlMs) {
      entries.set(key, { value, expiresAt: Date.now() + ttlMs });
    },
    async delete(key) {
      entries.delete(key);
    },
    async setIfAbsent(key, value, ttlMs) {
      if (live(key)) return false;
      entries.set(key, { value, expiresAt: Date.now() + ttlMs });
      return true;
    },
    async deleteIfEquals(key, value) {
      if (live(key)?.value !== value) return false;
      entries.delete(key);
      return true;
    },
    async replaceIfEquals(key, expected, value, ttlMs) {
      if (live(key)?.value !== expected) return false;
      entries.set(key, { value, expiresAt: Date.now() + ttlMs });
      return true;
    },
  };
}

describe("a custom KeyValueStore with rate limits on", () => {
  it("signs in, streams, and enforces the login and /responses limits through the store", async () => {
    const store = createMapStore();
    const h = await startHarness({
      evidence,
      sharedMock: mock,
      handler: {
        sessionStore: store,
        loginRateLimit: { limit: 2, windowMs: 3_600_000 },
        responsesProxy: { rateLimit: { limit: 1, windowMs: 3_600_000 } },
      },
    });
    try {
      const client = h.client();
      await signIn(h, client);
      const first = await client.post("/responses", responsesBody());
      expect(first.status).toBe(200);
      expect(first.text).toContain("response.completed");
      const second = await client.post("/responses", responsesBody());
      expect(second.status).toBe(429);
      expect(second.json()).toMatchObject({ error: "rate_limited" });

      const from = { "x-forwarded-for": "203.0.113.50" };
      expect((await h.client().post("/login", undefined, from)).status).toBe(200);
      expect((await h.client().post("/login", undefined, from)).status).toBe(200);
      expect((await h.client().post("/login", undefined, from)).status).toBe(429);
      // The counters live in the custom store, under the documented prefixes.
      expect(store.keys().some((key) => key.startsWith("lwc:rl:login:203.0.113.50:"))).toBe(true);
      expect(store.keys().some((key) => key.startsWith("lwc:rl:responses:"))).toBe(true);
    } finally {
      await h.close();
    }
  });
});

describe("a custom rate limiter factory", () => {
  it("is asked once per purpose and its verdict is what the handler answers", async () => {
    const asked: Array<{ purpose: RateLimitPurpose | undefined; prefix: string; limit: number }> = [];
    const seen: string[] = [];
    const refuseLogins = (_store: KeyValueStore, options: RateLimiterOptions): RateLimiter => {
      asked.push({ purpose: options.purpose, prefix: options.prefix, limit: options.limit });
      return {
        async limit(identifier) {
          seen.push(`${options.purpose}:${identifier}`);
          const success = options.purpose !== "login";
          return { success, limit: options.limit, remaining: success ? 1 : 0, reset: Date.now() + 42_000 };
        },
      };
    };
    const h = await startHarness({
      evidence,
      sharedMock: mock,
      handler: { createRateLimiter: refuseLogins, loginRateLimit: { limit: 7, windowMs: 60_000 } },
    });
    try {
      expect(asked).toEqual([
        { purpose: "login", prefix: "lwc:rl:login", limit: 7 },
        { purpose: "login-reuse", prefix: "lwc:rl:login-reuse", limit: 20 },
        { purpose: "login-global", prefix: "lwc:rl:login-all", limit: 100 },
        { purpose: "responses", prefix: "lwc:rl:responses", limit: 30 },
        { purpose: "models", prefix: "lwc:rl:models", limit: 30 },
        { purpose: "realtime", prefix: "lwc:rl:realtime", limit: 12 },
      ]);
      const refused = await h.client().post("/login", undefined, { "x-forwarded-for": "198.51.100.23" });
      expect(refused.status).toBe(429);
      expect(refused.json()).toMatchObject({ status: "error", error: "rate_limited" });
      // The limiter's reset is 42 s after its call; the handler counts from its own clock, read a few ms earlier.
      const { retryAfterSeconds } = refused.json() as { retryAfterSeconds: number };
      expect(retryAfterSeconds).toBeGreaterThanOrEqual(42);
      expect(retryAfterSeconds).toBeLessThanOrEqual(43);
      expect(seen).toContain("login:198.51.100.23");
    } finally {
      await h.close();
    }
  });
});

it("leaks no token", () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
});
