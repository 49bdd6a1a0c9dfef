/**
 * On a real `next start`: the login limits see the address a request's connection comes from
 * (reported by the Node HTTP server through instrumentation.ts), so a client directly in front of
 * the server is counted by it, not by the X-Forwarded-For it writes. Every connection here comes
 * from 127.0.0.1, so the checks read the rate-limit keys the server wrote into Redis.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createUpstashStore } from "@/lib/stores/upstash-store";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { startNextServer, type NextServer } from "@/test-support/next-server";
import { startRedisServer, type RedisServer } from "@/test-support/redis-server";
import { startUpstashBridge, type UpstashBridge } from "@/test-support/upstash-bridge";
import { TEST_SECRET } from "./cluster";

const TOKEN = "bridge-token-for-login-buckets";
let mock: MockUpstream;
let redis: RedisServer;
let bridge: UpstashBridge;
let server: NextServer;

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  redis = await startRedisServer();
  bridge = await startUpstashBridge({ redisPort: redis.port, token: TOKEN });
  server = await startNextServer({
    LWC_ISSUER_URL: mock.issuer,
    LWC_CODEX_BASE_URL: mock.codexBaseUrl,
    LWC_SECRET: TEST_SECRET,
    UPSTASH_REDIS_REST_URL: bridge.url,
    UPSTASH_REDIS_REST_TOKEN: TOKEN,
    // No proxy in front: the connection's address is the client's.
    LWC_TRUSTED_PROXY_HOPS: "0",
    ...(process.env.LWC_DIST_DIR ? { LWC_DIST_DIR: process.env.LWC_DIST_DIR } : {}),
  });
});
afterAll(async () => {
  await server?.stop();
  await bridge?.close();
  await redis?.dispose();
  await mock?.close();
});

it("counts a client by its connection's address, whatever X-Forwarded-For it writes", async () => {
  const reply = await fetch(`${server.url}/api/provider/login`, { method: "POST", headers: { "x-forwarded-for": "198.51.100.77" } });
  expect(reply.status).toBe(200);
  await reply.text();
  const keys = await createUpstashStore({ url: bridge.url, token: TOKEN }).redis.keys("lwc:rl:login:*");
  expect(keys.some((key) => key.includes(":127.0.0.1:"))).toBe(true);
  expect(keys.some((key) => key.includes("198.51.100") || key.includes(":unknown"))).toBe(false);
});
