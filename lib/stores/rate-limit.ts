import { Ratelimit } from "@upstash/ratelimit";
import type { Redis } from "@upstash/redis";
import { z } from "zod";
import { memoryStoreInternals } from "./memory-store";
import type { KeyValueStore, RateLimiter, RateLimitResult } from "./types";
import { withStoreDeadline } from "./upstash-store";

export interface RateLimiterOptions {
  prefix: string;
  limit: number;
  windowMs: number;
}

const optionsSchema = z.object({
  prefix: z.string().min(1),
  limit: z.number().int().positive(),
  windowMs: z.number().int().positive(),
});

/**
 * A fixed-window limiter: at most `limit` hits per identifier in each window of `windowMs`
 * (windows aligned to multiples of windowMs since the epoch, so `reset` is the same on every
 * instance). Fails closed: when Redis cannot be reached the call throws StoreUnavailableError.
 */
export function createRateLimiter(store: KeyValueStore, options: RateLimiterOptions): RateLimiter {
  const { prefix, limit, windowMs } = optionsSchema.parse(options);
  if (store.kind === "upstash") return createUpstashRateLimiter(upstashClientOf(store), prefix, limit, windowMs);
  const internals = memoryStoreInternals(store);
  if (!internals) throw new TypeError("createRateLimiter: unknown memory store (use createMemoryStore)");
  return {
    async limit(identifier) {
      const { count, reset } = internals.countHit(`${prefix}:${identifier}`, windowMs);
      return { success: count <= limit, limit, remaining: Math.max(0, limit - count), reset };
    },
  };
}

function upstashClientOf(store: KeyValueStore): Redis {
  const redis = (store as { redis?: Redis }).redis;
  if (!redis) throw new TypeError("createRateLimiter: an upstash store must expose `.redis` (use createUpstashStore)");
  return redis;
}

function createUpstashRateLimiter(redis: Redis, prefix: string, limit: number, windowMs: number): RateLimiter {
  const ratelimit = new Ratelimit({
    redis,
    prefix,
    limiter: Ratelimit.fixedWindow(limit, `${windowMs} ms`),
    analytics: false,
    // 0 turns off the library's own timeout, which would let the request THROUGH; our deadline
    // (the store's timeoutMs) throws instead.
    timeout: 0,
    ephemeralCache: new BlockedUntilCache(),
  });
  return {
    async limit(identifier): Promise<RateLimitResult> {
      const result = await withStoreDeadline(redis, "rateLimit", () => ratelimit.limit(identifier));
      return { success: result.success, limit: result.limit, remaining: result.remaining, reset: result.reset };
    },
  };
}

/**
 * The library's ephemeral cache remembers identifiers that already hit the limit until their
 * window resets, and refuses them without a Redis round trip. It can only refuse, never admit, so
 * it cannot weaken the limit. The library removes an entry only when that identifier comes back;
 * this map also prunes entries whose window has passed once it grows, so it stays bounded.
 */
class BlockedUntilCache extends Map<string, number> {
  private pruneAtSize = 1024;

  override set(identifier: string, resetAt: number): this {
    super.set(identifier, resetAt);
    if (this.size >= this.pruneAtSize) {
      const now = Date.now();
      for (const [key, reset] of this) if (reset < now) this.delete(key);
      this.pruneAtSize = Math.max(1024, this.size * 2);
    }
    return this;
  }
}
