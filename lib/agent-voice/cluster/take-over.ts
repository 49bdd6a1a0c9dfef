import "server-only";
/**
 * Taking over a live session another instance handed off (its host stopped, its VM goes on): one
 * instance at a time (a lock in the store), the sandbox reopened from the hand-off's cursor, and the
 * events it kept. A sandbox that is gone ends the session's record instead.
 */
import { reattachAppServer, type AppServerProcess } from "../app-server-process";
import type { LiveEvent } from "../event-log";
import type { AgentSandbox } from "../sandbox/types";
import type { SessionHolders } from "./holders";
import { sessionEventsKey, takeOverLockKey } from "./keys";
import { closeRecord, readRecord, type SessionRecord } from "./records";
import { getSealed, type SealedStore } from "./sealed-store";

/** Longer than a reopen takes: a taker that died lets another try after this. */
const TAKE_OVER_LOCK_MS = 30_000;
/** How long the ended record of a session nobody could take over stays readable. */
const ENDED_RETENTION_MS = 60_000;

type TakeOver =
  | { kind: "taken"; record: SessionRecord; appServer: AppServerProcess; kept: LiveEvent[]; release(): Promise<void> }
  /** Another instance is taking it over right now, or did. */
  | { kind: "busy" }
  /** Its sandbox is gone: the record now says the session ended. */
  | { kind: "ended" };

export async function takeOver(
  shared: SealedStore,
  sandbox: AgentSandbox,
  holders: SessionHolders,
  instance: string,
  sessionId: string,
): Promise<TakeOver> {
  const lock = takeOverLockKey(sessionId);
  if (!(await shared.store.setIfAbsent(lock, instance, TAKE_OVER_LOCK_MS))) return { kind: "busy" };
  const release = async () => void (await shared.store.deleteIfEquals(lock, instance));
  try {
    // Read again under the lock: another instance may have taken it over just before.
    const record = await readRecord(shared, sessionId);
    if (!record || record.host !== "" || !record.handoff || record.closed !== undefined) {
      await release();
      return { kind: "busy" };
    }
    let appServer: AppServerProcess;
    try {
      appServer = await reattachAppServer(sandbox, record.sandbox, record.handoff.appServer);
    } catch {
      await closeRecord(shared, record, "instance_gone", ENDED_RETENTION_MS);
      if (record.claim) await holders.release(record.loginId, record.claim);
      await release();
      return { kind: "ended" };
    }
    const kept = await getSealed(shared, sessionEventsKey(sessionId));
    return { kind: "taken", record, appServer, kept: Array.isArray(kept) ? (kept as LiveEvent[]) : [], release };
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
}
