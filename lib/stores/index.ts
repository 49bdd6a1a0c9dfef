import "server-only";
import { z } from "zod";
import { createMemoryStore } from "./memory-store";
import type { KeyValueStore } from "./types";
import { createUpstashStore } from "./upstash-store";

export { createMemoryStore } from "./memory-store";
export { createUpstashStore, DEFAULT_STORE_TIMEOUT_MS, type UpstashStoreOptions } from "./upstash-store";
export { createRateLimiter, type RateLimiterFactory, type RateLimiterOptions } from "./rate-limit";
export { StoreUnavailableError, type KeyValueStore, type RateLimiter, type RateLimitPurpose, type RateLimitResult } from "./types";

/** Upstash's own names first, then the ones Vercel's marketplace integration sets. */
const CREDENTIAL_PAIRS = [
  ["UPSTASH_REDIS_REST_URL", "UPSTASH_REDIS_REST_TOKEN"],
  ["KV_REST_API_URL", "KV_REST_API_TOKEN"],
] as const;

/** Every variable createStoreFromEnv reads. */
export const STORE_ENV_VARIABLES: readonly string[] = CREDENTIAL_PAIRS.flat();

const restUrlSchema = z.url({ protocol: /^https?$/ });

/** `upstash` when a URL and token pair is set (what createStoreFromEnv then makes), else `memory`. Never throws. */
export function storeKindFromEnv(env: Record<string, string | undefined>): "upstash" | "memory" {
  const set = (name: string) => Boolean(env[name]?.trim());
  return CREDENTIAL_PAIRS.some(([urlName, tokenName]) => set(urlName) && set(tokenName)) ? "upstash" : "memory";
}

/**
 * Upstash when a URL and token pair is set, else the in-memory store. A half-set pair (URL without
 * token or the reverse) is a deployment mistake, and silently falling back to memory would lose
 * sessions across instances, so it throws instead. Messages name variables, never their values.
 */
export function createStoreFromEnv(env: Record<string, string | undefined>): KeyValueStore {
  for (const [urlName, tokenName] of CREDENTIAL_PAIRS) {
    const url = env[urlName]?.trim() || undefined;
    const token = env[tokenName]?.trim() || undefined;
    if (!url && !token) continue;
    if (!url || !token) {
      throw new Error(`${url ? tokenName : urlName} must be set together with ${url ? urlName : tokenName}`);
    }
    if (!restUrlSchema.safeParse(url).success) throw new Error(`${urlName} must be an http(s) URL`);
    return createUpstashStore({ url, token });
  }
  return createMemoryStore();
}
