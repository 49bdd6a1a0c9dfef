import "server-only";
/**
 * A live session's record in the shared store: whose it is, which instance hosts it (holds codex's
 * channel) and where its codex runs. Written when the session goes live and renewed by the hosting
 * instance's heartbeat; marked closed when it ends and kept a short while, so a late request on
 * another instance still finds it. A record whose host stopped renewing it lapses.
 */
import type { LiveSessionHandoff } from "../live-session";
import type { SandboxHandle } from "../sandbox/types";
import { loginSessionKey, sandboxInUseKey, sessionRecordKey } from "./keys";
import { getSealed, putSealed, type SealedStore } from "./sealed-store";

/** How long a record lasts without its host renewing it: an instance that died takes this long to be noticed. */
const RECORD_TTL_MS = 15_000;

export interface SessionRecord {
  id: string;
  loginId: string;
  accountId: string;
  /** The instance that hosts it; "" while it waits to be taken over (`handoff`). */
  host: string;
  sandbox: SandboxHandle;
  /** Set once it ended: the `session.closed` reason. */
  closed?: string;
  /** Set while no instance hosts it: what the next one needs (it holds the relay's secret: sealed). */
  handoff?: LiveSessionHandoff;
  /** The caps' claim it holds. */
  claim?: string;
}

function isRecord(value: unknown): value is SessionRecord {
  const record = value as SessionRecord | null;
  return typeof record?.id === "string" && typeof record.loginId === "string" && typeof record.host === "string";
}

export async function publishRecord(shared: SealedStore, record: SessionRecord, ttlMs = RECORD_TTL_MS): Promise<void> {
  await putSealed(shared, sessionRecordKey(record.id), record, ttlMs);
  if (record.closed !== undefined) return;
  await shared.store.set(loginSessionKey(record.loginId), record.id, ttlMs);
  if (record.sandbox.kind === "vercel-sandbox") await shared.store.set(sandboxInUseKey(record.sandbox.sandboxId), record.id, ttlMs);
}

export async function readRecord(shared: SealedStore, sessionId: string): Promise<SessionRecord | null> {
  const value = await getSealed(shared, sessionRecordKey(sessionId));
  return isRecord(value) && value.id === sessionId ? value : null;
}

/** The login's live session's record, if one is live on any instance. */
export async function readLoginRecord(shared: SealedStore, loginId: string): Promise<SessionRecord | null> {
  const sessionId = await shared.store.get(loginSessionKey(loginId));
  if (sessionId === null) return null;
  const record = await readRecord(shared, sessionId);
  return record && record.loginId === loginId && record.closed === undefined ? record : null;
}

/** Marks the record closed (kept `keepMs` for late requests) and drops the login's pointer and the sandbox's mark. */
export async function closeRecord(shared: SealedStore, record: SessionRecord, reason: string, keepMs: number): Promise<void> {
  await publishRecord(shared, { ...record, closed: reason }, keepMs);
  await shared.store.deleteIfEquals(loginSessionKey(record.loginId), record.id);
  if (record.sandbox.kind === "vercel-sandbox") await shared.store.deleteIfEquals(sandboxInUseKey(record.sandbox.sandboxId), record.id);
}
