/** Test-only helpers for the store tests (not imported by application code). */
import { randomUUID } from "node:crypto";
import { startRedisServer, type RedisServerOptions } from "./redis-server";
import { startUpstashBridge } from "./upstash-bridge";
import { createUpstashStore } from "@/lib/stores/upstash-store";

/** Polls `condition` every `intervalMs` until it is truthy; fails after `timeoutMs`. */
export async function waitFor<T>(
  condition: () => Promise<T> | T,
  { timeoutMs = 10_000, intervalMs = 20, what = "condition" }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Resolves with how long `run` took to settle and how it settled. */
export async function timed<T>(run: () => Promise<T>): Promise<{ elapsedMs: number; value?: T; error?: unknown }> {
  const started = performance.now();
  try {
    const value = await run();
    return { elapsedMs: performance.now() - started, value };
  } catch (error) {
    return { elapsedMs: performance.now() - started, error };
  }
}

/** A key no other test (or parallel test file) uses. */
export const uniqueKey = (label: string) => `test:${label}:${randomUUID()}`;

/** A real redis-server with the Upstash REST bridge in front of it and a store talking to the bridge. */
export async function startUpstashStack(storeOptions: { timeoutMs?: number } = {}, redisOptions: RedisServerOptions = {}) {
  const token = `test-token-${randomUUID()}`;
  const redis = await startRedisServer(redisOptions);
  const bridge = await startUpstashBridge({ redisPort: redis.port, token });
  const store = createUpstashStore({ url: bridge.url, token, ...storeOptions });
  const stack = {
    redis,
    /** Replaceable: an outage test closes the bridge and starts a new one on the same port. */
    bridge,
    store,
    token,
    async stop() {
      await stack.bridge.close();
      await redis.dispose();
    },
  };
  return stack;
}
