import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { untilWindowHasRoom } from "@/test-support/rate-limit-window";
import { connectResp, type RespConnection } from "@/test-support/resp-connection";
import { createMemoryStore } from "./memory-store";
import { createRateLimiter } from "./rate-limit";
import { startUpstashStack, uniqueKey, waitFor } from "@/test-support/store-helpers";
import type { KeyValueStore, RateLimitResult } from "./types";

/**
 * A burst can straddle a window boundary (fixed windows are aligned to the epoch), so results are
 * grouped by window (`reset`): inside each window exactly min(limit, calls) may succeed.
 */
function expectExactlyLimitPerWindow(results: RateLimitResult[], limit: number) {
  const byWindow = new Map<number, RateLimitResult[]>();
  for (const result of results) byWindow.set(result.reset, [...(byWindow.get(result.reset) ?? []), result]);
  for (const inWindow of byWindow.values()) {
    expect(inWindow.filter((result) => result.success)).toHaveLength(Math.min(limit, inWindow.length));
  }
  expect(results.filter((result) => result.success).length).toBeGreaterThanOrEqual(limit);
}

function describeLimiterContract(name: string, start: () => Promise<{ store: KeyValueStore; stop(): Promise<void> }>) {
  describe(`rate limiter: ${name}`, () => {
    let store: KeyValueStore;
    let stop: () => Promise<void>;
    beforeAll(async () => {
      ({ store, stop } = await start());
    });
    afterAll(async () => {
      await stop?.();
    });

    it("lets exactly `limit` of a concurrent burst of 100 through", async () => {
      const limiter = createRateLimiter(store, { prefix: uniqueKey("burst"), limit: 7, windowMs: 60_000 });
      const before = Date.now();
      const results = await Promise.all(Array.from({ length: 100 }, () => limiter.limit("client-1")));
      expectExactlyLimitPerWindow(results, 7);
      for (const result of results) {
        expect(result.limit).toBe(7);
        expect(result.reset).toBeGreaterThan(before);
        expect(result.reset).toBeLessThanOrEqual(Date.now() + 60_000);
        expect(result.reset % 60_000).toBe(0);
        if (!result.success) expect(result.remaining).toBe(0);
      }
      const remaining = results.filter((result) => result.success).map((result) => result.remaining);
      expect(remaining.sort((a, b) => a - b)).toEqual(expect.arrayContaining([0, 6]));
    });

    it("counts identifiers and prefixes separately", async () => {
      const prefix = uniqueKey("ids");
      const limiter = createRateLimiter(store, { prefix, limit: 2, windowMs: 60_000 });
      const otherPurpose = createRateLimiter(store, { prefix: `${prefix}-other`, limit: 2, windowMs: 60_000 });
      const a = await Promise.all([limiter.limit("a"), limiter.limit("a"), limiter.limit("a")]);
      const b = await limiter.limit("b");
      const other = await otherPurpose.limit("a");
      expectExactlyLimitPerWindow(a, 2);
      expect(b.success).toBe(true);
      expect(other.success).toBe(true);
    });

    it("two limiters with the same prefix share one budget (as separate instances would)", async () => {
      const prefix = uniqueKey("shared");
      const first = createRateLimiter(store, { prefix, limit: 3, windowMs: 60_000 });
      const second = createRateLimiter(store, { prefix, limit: 3, windowMs: 60_000 });
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? first : second).limit("same")));
      expectExactlyLimitPerWindow(results, 3);
    });

    it("opens a new window once `reset` has passed", async () => {
      const limiter = createRateLimiter(store, { prefix: uniqueKey("window"), limit: 2, windowMs: 1_000 });
      const refused = await waitFor(
        async () => {
          const calledAt = Date.now();
          const result = await limiter.limit("client");
          return result.success ? undefined : { ...result, calledAt };
        },
        { timeoutMs: 5_000, intervalMs: 1, what: "a refusal" },
      );
      expect(refused.remaining).toBe(0);
      expect(refused.reset).toBeGreaterThan(refused.calledAt);
      expect(refused.reset).toBeLessThanOrEqual(refused.calledAt + 1_000);
      const admitted = await waitFor(
        async () => {
          const result = await limiter.limit("client");
          return result.success ? { result, at: Date.now() } : undefined;
        },
        { timeoutMs: 5_000, intervalMs: 25, what: "the next window" },
      );
      expect(admitted.at).toBeGreaterThanOrEqual(refused.reset);
      expect(admitted.result.reset).toBeGreaterThanOrEqual(refused.reset + 1_000);
      expect(admitted.result.remaining).toBe(1);
    });

    it("rejects nonsensical options", () => {
      expect(() => createRateLimiter(store, { prefix: "", limit: 1, windowMs: 1_000 })).toThrow();
      expect(() => createRateLimiter(store, { prefix: "p", limit: 0, windowMs: 1_000 })).toThrow();
      expect(() => createRateLimiter(store, { prefix: "p", limit: 1.5, windowMs: 1_000 })).toThrow();
      expect(() => createRateLimiter(store, { prefix: "p", limit: 1, windowMs: 0 })).toThrow();
    });
  });
}

describeLimiterContract("memory store", async () => ({ store: createMemoryStore(), stop: async () => {} }));

// A store the limiter does not know (same methods, no memory internals): the setIfAbsent slot window.
describeLimiterContract("a custom store (setIfAbsent slots)", async () => ({
  store: { ...createMemoryStore(), kind: "custom" },
  stop: async () => {},
}));

describeLimiterContract("upstash store (REST bridge + redis-server)", () => startUpstashStack());

describe("memory rate limiter with an injected clock", () => {
  it("counts per fixed window aligned to multiples of windowMs", async () => {
    let now = 10_250;
    const limiter = createRateLimiter(createMemoryStore({ now: () => now }), { prefix: "p", limit: 2, windowMs: 1_000 });
    expect(await limiter.limit("x")).toEqual({ success: true, limit: 2, remaining: 1, reset: 11_000 });
    expect(await limiter.limit("x")).toEqual({ success: true, limit: 2, remaining: 0, reset: 11_000 });
    expect(await limiter.limit("x")).toEqual({ success: false, limit: 2, remaining: 0, reset: 11_000 });
    now = 10_999;
    expect((await limiter.limit("x")).success).toBe(false);
    now = 11_000;
    expect(await limiter.limit("x")).toEqual({ success: true, limit: 2, remaining: 1, reset: 12_000 });
  });

  it("does not share counters between two memory stores", async () => {
    const first = createRateLimiter(createMemoryStore(), { prefix: "p", limit: 1, windowMs: 60_000 });
    const second = createRateLimiter(createMemoryStore(), { prefix: "p", limit: 1, windowMs: 60_000 });
    expect((await first.limit("x")).success).toBe(true);
    expect((await second.limit("x")).success).toBe(true);
    expect((await first.limit("x")).success).toBe(false);
  });
});

describe("upstash rate limiter on Redis", () => {
  let stack: Awaited<ReturnType<typeof startUpstashStack>>;
  let redis: RespConnection;
  beforeAll(async () => {
    stack = await startUpstashStack();
    redis = await connectResp(stack.redis.port);
  });
  afterAll(async () => {
    redis?.close();
    await stack?.stop();
  });

  it("runs @upstash/ratelimit's Lua script on Redis: EVALSHA, NOSCRIPT, EVAL, then EVALSHA hits", async () => {
    const prefix = uniqueKey("lua");
    // The exact `remaining` values below need both calls in one real window: a long window, and
    // (in the rare case that its end is near) a wait for the next one to begin.
    const windowMs = 3_600_000;
    await untilWindowHasRoom(windowMs, 60_000);
    const limiter = createRateLimiter(stack.store, { prefix, limit: 5, windowMs });
    const first = await limiter.limit("who");
    expect(first).toMatchObject({ success: true, remaining: 4 });
    // The client tries the script by hash, Redis does not know it, the client sends the script.
    expect(stack.bridge.commandNames().filter((name) => name.startsWith("EVAL"))).toEqual(["EVALSHA", "EVAL"]);

    const before = stack.bridge.commandNames().length;
    const second = await limiter.limit("who");
    expect(second).toMatchObject({ success: true, remaining: 3 });
    // Now the hash is known (mapped by the bridge to the stripped script): no fallback.
    expect(stack.bridge.commandNames().slice(before)).toEqual(["EVALSHA"]);

    // The counter lives in Redis under `${prefix}:${identifier}:${window}` with the window as TTL.
    expect(second.reset).toBe(first.reset);
    const window = Math.floor((first.reset - 1) / windowMs);
    const [count, ttl] = await redis.send([["GET", `${prefix}:who:${window}`], ["PTTL", `${prefix}:who:${window}`]]);
    expect(count).toBe("2");
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(windowMs);
  });
});
