import type { KeyValueStore } from "@/lib/stores/types";
import { sessionRecordSchema, type SessionRecord } from "./session-record";
import type { Sealer } from "./session-seal";

export const SESSION_KEY_PREFIX = "lwc:session:";

/** Slack on the seal's own expiry so it never ends before the store entry does. */
const SEAL_EXPIRY_SLACK_SECONDS = 60;

export interface SessionStore {
  /** The record, or null when absent, unreadable (foreign secret, tampered, old shape) or past its lifetime. */
  load(sessionId: string): Promise<SessionRecord | null>;
  /** Stores the sealed record with TTL = its remaining lifetime (deletes it when none is left). */
  save(sessionId: string, record: SessionRecord): Promise<void>;
  delete(sessionId: string): Promise<void>;
}

export function sessionKey(sessionId: string): string {
  return `${SESSION_KEY_PREFIX}${sessionId}`;
}

export function createSessionStore(store: KeyValueStore, sealer: Sealer, now: () => number): SessionStore {
  return {
    async load(sessionId) {
      const sealed = await store.get(sessionKey(sessionId));
      if (sealed === null) return null;
      const parsed = sessionRecordSchema.safeParse(await sealer.unseal(sealed));
      if (!parsed.success || parsed.data.expiresAt <= now()) return null;
      return parsed.data;
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
