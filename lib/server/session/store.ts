import "server-only";
import type { KeyValueStore } from "@/lib/stores/types";
import { sessionRecordSchema, type SessionRecord } from "./record";
import { deepFreeze, type Sealer } from "./seal";

export const SESSION_KEY_PREFIX = "lwc:session:";

/** Slack on the seal's own expiry so it never ends before the store entry does. */
const SEAL_EXPIRY_SLACK_SECONDS = 60;

export interface SessionStore {
  /** The record, or null when absent, unreadable (foreign secret, tampered, old shape) or past its lifetime. */
  load(sessionId: string): Promise<SessionRecord | null>;
  /** As load, with the stored (sealed) value it came from: the token for `saveIfUnchanged` and `claim`. */
  loadSealed(sessionId: string): Promise<{ record: SessionRecord; sealed: string } | null>;
  /** Stores the sealed record with TTL = its remaining lifetime (deletes it when none is left). */
  save(sessionId: string, record: SessionRecord): Promise<void>;
  /**
   * Saves the record only while the store still holds `sealed` (nobody deleted or rewrote it since
   * it was read): atomic in every store. False, and nothing written, when it lost.
   */
  saveIfUnchanged(sessionId: string, sealed: string, record: SessionRecord): Promise<boolean>;
  /** Atomically deletes the record only while it still holds `sealed`: true for exactly one claimant. */
  claim(sessionId: string, sealed: string): Promise<boolean>;
  delete(sessionId: string): Promise<void>;
}

export function sessionKey(sessionId: string): string {
  return `${SESSION_KEY_PREFIX}${sessionId}`;
}

export function createSessionStore(store: KeyValueStore, sealer: Sealer, now: () => number): SessionStore {
  // The sealer hands out one frozen value per seal it remembers, so the schema check runs once per
  // seal too (about 1% of a streamed reply's server CPU when run on every request). The record is
  // deep-frozen: every caller shares it, and a change throws instead of reaching the next load.
  const validated = new WeakMap<object, SessionRecord | null>();
  function validate(opened: unknown): SessionRecord | null {
    if (typeof opened !== "object" || opened === null) return null;
    let record = validated.get(opened);
    if (record === undefined) {
      const parsed = sessionRecordSchema.safeParse(opened);
      record = parsed.success ? deepFreeze(parsed.data) : null;
      validated.set(opened, record);
    }
    return record;
  }
  async function loadSealed(sessionId: string) {
    const sealed = await store.get(sessionKey(sessionId));
    if (sealed === null) return null;
    const record = validate(await sealer.unseal(sealed));
    if (record === null || record.expiresAt <= now()) return null;
    return { record, sealed };
  }

  return {
    loadSealed,
    async load(sessionId) {
      return (await loadSealed(sessionId))?.record ?? null;
    },
    async saveIfUnchanged(sessionId, expected, record) {
      const ttlMs = record.expiresAt - now();
      if (ttlMs <= 0) return store.deleteIfEquals(sessionKey(sessionId), expected);
      const sealed = await sealer.seal(record, ttlMs / 1000 + SEAL_EXPIRY_SLACK_SECONDS);
      return store.replaceIfEquals(sessionKey(sessionId), expected, sealed, ttlMs);
    },
    async claim(sessionId, sealed) {
      return store.deleteIfEquals(sessionKey(sessionId), sealed);
    },
    async save(sessionId, record) {
      const ttlMs = record.expiresAt - now();
      if (ttlMs <= 0) {
        await store.delete(sessionKey(sessionId));
        return;
      }
      const sealed = await sealer.seal(record, ttlMs / 1000 + SEAL_EXPIRY_SLACK_SECONDS);
      await store.set(sessionKey(sessionId), sealed, ttlMs);
    },
    async delete(sessionId) {
      await store.delete(sessionKey(sessionId));
    },
  };
}
