import "server-only";
/**
 * The storage seam of the service. Values are opaque strings (the session manager
 * serialises and seals them). TTLs are enforced by the store itself.
 */
export interface KeyValueStore {
  /** `memory` and `upstash` are the built-in stores; a store of your own names itself (e.g. `custom`). */
  readonly kind: "memory" | "upstash" | (string & {});
  get(key: string): Promise<string | null>;
  /** Sets the value with a time to live in milliseconds (must be > 0). */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Atomically sets the key only when it is absent. True when this call set it (a lock was acquired). */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Atomically deletes the key only when it still holds `value` (releasing one's own lock). */
  deleteIfEquals(key: string, value: string): Promise<boolean>;
  /**
   * Atomically sets the key to `value` (with a new TTL) only when it still holds `expected`: a
   * compare-and-set. False, and nothing written, when the key is absent or holds something else.
   */
  replaceIfEquals(key: string, expected: string, value: string, ttlMs: number): Promise<boolean>;
}

export interface RateLimitResult {
  success: boolean;
  limit: number;
  remaining: number;
  /** When the current window resets, epoch milliseconds. */
  reset: number;
}

/** One limiter per purpose, each with its own key prefix. Atomic: a burst never lets more than `limit` through. */
export interface RateLimiter {
  limit(identifier: string): Promise<RateLimitResult>;
}

/** What the handler limits; each purpose gets its own limiter and key prefix. */
export type RateLimitPurpose = "login" | "login-global" | "login-reuse" | "responses" | "models" | "realtime" | "history" | "shared";

/** Thrown by a store or limiter whose backend cannot be reached in time. The server answers 503 `store_unavailable`. */
export class StoreUnavailableError extends Error {
  readonly code = "store_unavailable";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreUnavailableError";
  }
}
