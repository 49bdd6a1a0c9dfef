/** Client-chosen strings never become rate-limit keys: 8 KB addresses leave only fixed-size keys in Redis. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createUpstashStore } from "@/lib/stores/upstash-store";
import { startRedisServer, type RedisServer } from "@/test-support/redis-server";
import { startUpstashBridge, type UpstashBridge } from "@/test-support/upstash-bridge";
import { createEvidence, findLeakedTokens, startHarness, type Harness } from "./harness";

const evidence = createEvidence();
const BRIDGE_TOKEN = "bridge-token-for-limit-keys";
let redis: RedisServer;
let bridge: UpstashBridge;
let store: ReturnType<typeof createUpstashStore>;
let h: Harness;

beforeAll(async () => {
  redis = await startRedisServer();
  bridge = await startUpstashBridge({ redisPort: redis.port, token: BRIDGE_TOKEN });
  store = createUpstashStore({ url: bridge.url, token: BRIDGE_TOKEN, timeoutMs: 2_000 });
  h = await startHarness({ evidence, handler: { sessionStore: store, loginGlobalRateLimit: { limit: 20, windowMs: 3_600_000 } } });
});
afterAll(async () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
  await h?.close();
  await bridge?.close();
  await redis?.dispose();
});

it("60 logins with unique 8 KB X-Forwarded-For values store no key longer than a hash", async () => {
  for (let i = 0; i < 60; i += 1) {
    const address = `${i}-${"a".repeat(8 * 1024)}`;
    const reply = await h.client().post("/login", undefined, { "x-forwarded-for": address });
    expect([200, 429]).toContain(reply.status);
  }
  const keys = await store.redis.keys("lwc:rl:*");
  expect(keys.length).toBeGreaterThan(0);
  expect(Math.max(...keys.map((key) => key.length))).toBeLessThan(128);
});
