import "server-only";
/** Sealed JSON values in the shared store: what one instance writes for the others (never readable without LWC_SECRET). */
import type { KeyValueStore } from "@/lib/stores/types";

/** Seals and opens values with LWC_SECRET (the session record's sealer, passed down by the handler). */
export interface ValueSealer {
  seal(data: unknown, ttlSeconds: number): Promise<string>;
  /** The data, or null when no configured secret opens it. */
  unseal(sealed: string): Promise<unknown>;
}

export interface SealedStore {
  store: KeyValueStore;
  sealer: ValueSealer;
}

// A seal holds an object: an array or a string is wrapped (iron-session would turn an array into an object).
const seal = (shared: SealedStore, value: unknown, ttlMs: number) => shared.sealer.seal({ value }, ttlMs / 1000);
async function open(shared: SealedStore, raw: string): Promise<unknown> {
  const opened = (await shared.sealer.unseal(raw)) as { value?: unknown } | null;
  return opened?.value ?? null;
}

export async function putSealed(shared: SealedStore, key: string, value: unknown, ttlMs: number): Promise<void> {
  await shared.store.set(key, await seal(shared, value, ttlMs), ttlMs);
}

/** The value under `key`, or null when there is none or it does not open. */
export async function getSealed(shared: SealedStore, key: string): Promise<unknown> {
  const raw = await shared.store.get(key);
  return raw === null ? null : open(shared, raw);
}

/**
 * Changes the value under `key` atomically (compare-and-set, retried while other instances change
 * it too): `change` gets the current value (null when absent or unreadable) and returns the new one.
 * Throws what `change` throws, with nothing written.
 */
/** Opens a raw value read from the store (null when it does not open). */
export const openSealed = open;

export async function updateSealed<T>(
  shared: SealedStore,
  key: string,
  ttlMs: number,
  change: (current: unknown) => T,
  attempts = 50,
): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const raw = await shared.store.get(key);
    const next = change(raw === null ? null : await open(shared, raw));
    const sealed = await seal(shared, next, ttlMs);
    const written = raw === null ? await shared.store.setIfAbsent(key, sealed, ttlMs) : await shared.store.replaceIfEquals(key, raw, sealed, ttlMs);
    if (written) return next;
  }
  throw new Error(`the shared value ${key.split(":").slice(0, 3).join(":")} kept changing under this instance`);
}
