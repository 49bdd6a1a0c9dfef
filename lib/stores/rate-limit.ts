import "server-only";
import { Ratelimit } from "@upstash/ratelimit";
import type { Redis } from "@upstash/redis";
import { z } from "zod";
import { memoryStoreInternals } from "./memory-store";
import type { KeyValueStore, RateLimiter, RateLimitPurpose, RateLimitResult } from "./types";
import { withStoreDeadline } from "./upstash-store";

export interface RateLimiterOptions {
  prefix: string;
  limit: number;
  windowMs: number;
  /** What the limiter is for, when the handler asks (a factory of your own may pick by it). */
  purpose?: RateLimitPurpose;
  /** Clock for stores of your own (memory and Upstash use their own). Default Date.now. */
  now?: () => number;
}

/**
 * How the handler gets a limiter for each purpose. `createRateLimiter` is the default; pass your own
 * (same signature) to the handler's `createRateLimiter` option to plug in any limiter.
 */
export type RateLimiterFactory = (store: KeyValueStore, options: RateLimiterOptions) => RateLimiter;

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
  if (!internals) return createSlotRateLimiter(store, prefix, limit, windowMs, options.now ?? Date.now);
  return {
    async limit(identifier) {
      const { count, reset } = internals.countHit(`${prefix}:${identifier}`, windowMs);
      return { success: count <= limit, limit, remaining: Math.max(0, limit - count), reset };
    },
  };
}

/**
 * A fixed-window limiter for any KeyValueStore, built on its atomic `setIfAbsent`: hit n of a window
 * claims slot n (`{prefix}:{id}:{window}:{n}`), so at most `limit` calls can succeed per window even
 * across instances. A refusal costs one `get` (the last slot is taken); an admission costs up to
 * `limit` round trips, which is fine for the small per-minute limits here. A store with a cheaper
 * atomic counter can bring its own limiter through the handler's `createRateLimiter` option.
 */
function createSlotRateLimiter(
  store: KeyValueStore,
  prefix: string,
  limit: number,
  windowMs: number,
  now: () => number,
): RateLimiter {
  return {
    async limit(identifier): Promise<RateLimitResult> {
      const window = Math.floor(now() / windowMs);
      const reset = (window + 1) * windowMs;
      const slotKey = (slot: number) => `${prefix}:${identifier}:${window}:${slot}`;
      // Slots outlive their window a little, so a late caller cannot reopen a finished one.
      const ttlMs = reset - now() + windowMs;
      if ((await store.get(slotKey(limit))) !== null) return { success: false, limit, remaining: 0, reset };
      for (let slot = 1; slot <= limit; slot += 1) {
        if (await store.setIfAbsent(slotKey(slot), "1", ttlMs)) {
          return { success: true, limit, remaining: limit - slot, reset };
        }
      }
      return { success: false, limit, remaining: 0, reset };
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
