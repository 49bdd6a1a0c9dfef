import "server-only";
import type { KeyValueStore } from "./types";
import { requirePositiveTtl } from "./ttl";

interface Entry {
  value: string;
  expiresAt: number;
}

interface WindowCounter {
  window: number;
  reset: number;
  count: number;
}

/** What the in-process rate limiter needs from a memory store: its clock and a counter per window. */
interface MemoryStoreInternals {
  now(): number;
  /** Atomically counts one hit in the fixed window that contains `now()`. */
  countHit(key: string, windowMs: number): { count: number; reset: number };
}

// On globalThis, like the store the app keeps there in development (lib/one-per-process.ts): a
// re-evaluation of this module must still find the counters of a store made before it.
const INTERNALS = Symbol.for("login-with-chatgpt.memory-store-internals");
const holder = globalThis as { [INTERNALS]?: WeakMap<KeyValueStore, MemoryStoreInternals> };
const internalsByStore = (holder[INTERNALS] ??= new WeakMap());

/** The memory store's clock and counters, or undefined when `store` is not a memory store. */
export function memoryStoreInternals(store: KeyValueStore): MemoryStoreInternals | undefined {
  return internalsByStore.get(store);
}

/**
 * Expired entries are dropped lazily on read, and in one sweep whenever the map has grown past
 * a threshold that doubles with the live size: amortised O(1) per write, no timers to leak.
 */
const MIN_SWEEP_SIZE = 1024;

function createSweepingMap<V>(isExpired: (value: V) => boolean): Map<string, V> & { noteWrite(): void } {
  const map = new Map<string, V>() as Map<string, V> & { noteWrite(): void };
  let sweepAtSize = MIN_SWEEP_SIZE;
  map.noteWrite = () => {
    if (map.size < sweepAtSize) return;
    for (const [key, value] of map) {
      if (isExpired(value)) map.delete(key);
    }
    sweepAtSize = Math.max(MIN_SWEEP_SIZE, map.size * 2);
  };
  return map;
}

/**
 * A process-local store: fine for one instance and for tests, but sessions are lost on restart and
 * not shared between instances. Every method does its work synchronously before its promise
 * settles, so check-and-set operations cannot interleave.
 */
export function createMemoryStore(options: { now?: () => number } = {}): KeyValueStore {
  const now = options.now ?? Date.now;
  const entries = createSweepingMap<Entry>((entry) => entry.expiresAt <= now());
  const counters = createSweepingMap<WindowCounter>((counter) => counter.reset <= now());

  function liveEntry(key: string): Entry | undefined {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  }

  function write(key: string, value: string, ttlMs: number): void {
    entries.set(key, { value, expiresAt: now() + requirePositiveTtl(ttlMs) });
    entries.noteWrite();
  }

  const store: KeyValueStore = {
    kind: "memory",
    async get(key) {
      return liveEntry(key)?.value ?? null;
    },
    async set(key, value, ttlMs) {
      write(key, value, ttlMs);
    },
    async delete(key) {
      entries.delete(key);
    },
    async setIfAbsent(key, value, ttlMs) {
      if (liveEntry(key)) return false;
      write(key, value, ttlMs);
      return true;
    },
    async deleteIfEquals(key, value) {
      if (liveEntry(key)?.value !== value) return false;
      entries.delete(key);
      return true;
    },
    async replaceIfEquals(key, expected, value, ttlMs) {
      requirePositiveTtl(ttlMs);
      if (liveEntry(key)?.value !== expected) return false;
      write(key, value, ttlMs);
      return true;
    },
  };

  internalsByStore.set(store, {
    now,
    countHit(key, windowMs) {
      const window = Math.floor(now() / windowMs);
      let counter = counters.get(key);
      if (!counter || counter.window !== window) {
        counter = { window, reset: (window + 1) * windowMs, count: 0 };
        counters.set(key, counter);
        counters.noteWrite();
      }
      counter.count += 1;
      return { count: counter.count, reset: counter.reset };
    },
  });
  return store;
}
