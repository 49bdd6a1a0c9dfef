import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectResp, type RespConnection } from "@/test-support/resp-connection";
import { startUpstashStack, uniqueKey } from "@/test-support/store-helpers";
import { createUpstashStore } from "./upstash-store";

describe("Upstash store on Redis", () => {
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

  it("keeps the TTL in Redis (SET ... PX) and the value as the plain string", async () => {
    const key = uniqueKey("px");
    await stack.store.set(key, '{"sealed":"123"}', 45_000);
    const [value, ttl] = await redis.send([["GET", key], ["PTTL", key]]);
    expect(value).toBe('{"sealed":"123"}');
    expect(ttl).toBeGreaterThan(40_000);
    expect(ttl).toBeLessThanOrEqual(45_000);
  });

  it("setIfAbsent sets a TTL too, so an abandoned lock frees itself", async () => {
    const key = uniqueKey("nx-px");
    expect(await stack.store.setIfAbsent(key, "lock", 5_000)).toBe(true);
    const [ttl] = await redis.send([["PTTL", key]]);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
  });

  it("reads what another instance (another client) wrote", async () => {
    const other = createUpstashStore({ url: stack.bridge.url, token: stack.token });
    const key = uniqueKey("shared");
    await other.set(key, "from instance B", 60_000);
    expect(await stack.store.get(key)).toBe("from instance B");
  });

  it("exposes the @upstash/redis client for the rate limiter", async () => {
    expect(await stack.store.redis.ping()).toBe("PONG");
  });

  it("reports a wrong token as StoreUnavailableError without echoing the token or values", async () => {
    const wrong = createUpstashStore({ url: stack.bridge.url, token: "wrong-token-value" });
    const error = await wrong.set(uniqueKey("auth"), "secret-session-value", 1_000).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "StoreUnavailableError", code: "store_unavailable" });
    expect(String((error as Error).message)).toContain("Unauthorized");
    expect(String((error as Error).message)).not.toMatch(/wrong-token-value|secret-session-value/);
    expect((error as Error).cause).toBeUndefined();
  });

  it("rejects a non-positive timeout", () => {
    expect(() => createUpstashStore({ url: stack.bridge.url, token: stack.token, timeoutMs: 0 })).toThrow(RangeError);
  });
});
