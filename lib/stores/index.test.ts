import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStoreFromEnv } from "./index";
import { startUpstashStack, uniqueKey } from "@/test-support/store-helpers";

describe("createStoreFromEnv", () => {
  let stack: Awaited<ReturnType<typeof startUpstashStack>>;
  beforeAll(async () => {
    stack = await startUpstashStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function expectWorkingUpstash(env: Record<string, string | undefined>) {
    const store = createStoreFromEnv(env);
    expect(store.kind).toBe("upstash");
    const key = uniqueKey("env");
    await store.set(key, "through the bridge", 60_000);
    expect(await stack.store.get(key)).toBe("through the bridge");
  }

  it("uses memory when no Redis is configured (blank values count as unset)", () => {
    expect(createStoreFromEnv({}).kind).toBe("memory");
    expect(createStoreFromEnv({ UPSTASH_REDIS_REST_URL: "", UPSTASH_REDIS_REST_TOKEN: "  " }).kind).toBe("memory");
  });

  it("uses Upstash with UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN", async () => {
    await expectWorkingUpstash({ UPSTASH_REDIS_REST_URL: stack.bridge.url, UPSTASH_REDIS_REST_TOKEN: stack.token });
  });

  it("falls back to Vercel's KV_REST_API_URL and KV_REST_API_TOKEN", async () => {
    await expectWorkingUpstash({ KV_REST_API_URL: stack.bridge.url, KV_REST_API_TOKEN: stack.token });
  });

  it("prefers the UPSTASH_ pair over the KV_ pair", async () => {
    await expectWorkingUpstash({
      UPSTASH_REDIS_REST_URL: stack.bridge.url,
      UPSTASH_REDIS_REST_TOKEN: stack.token,
      KV_REST_API_URL: "http://127.0.0.1:1",
      KV_REST_API_TOKEN: "unused",
    });
  });

  it("refuses a half-configured pair instead of silently using memory, naming only variables", () => {
    expect(() => createStoreFromEnv({ UPSTASH_REDIS_REST_URL: "http://127.0.0.1:1" })).toThrow(/UPSTASH_REDIS_REST_TOKEN/);
    expect(() => createStoreFromEnv({ KV_REST_API_TOKEN: "secret-token-value" })).toThrow(/KV_REST_API_URL/);
    expect(() => createStoreFromEnv({ KV_REST_API_TOKEN: "secret-token-value" })).not.toThrow(/secret-token-value/);
  });

  it("refuses a URL that is not http(s)", () => {
    expect(() => createStoreFromEnv({ UPSTASH_REDIS_REST_URL: "redis://127.0.0.1:6379", UPSTASH_REDIS_REST_TOKEN: "t" })).toThrow(
      /UPSTASH_REDIS_REST_URL must be an http\(s\) URL/,
    );
  });
});
