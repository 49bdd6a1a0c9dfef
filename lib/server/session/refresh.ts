import "server-only";
import type { KeyValueStore } from "@/lib/stores/types";
import { ProviderAuthError, isRefreshTokenInvalid } from "@/lib/upstream/errors";
import { needsRefresh, refreshTokenSet, revokeRefreshToken } from "@/lib/upstream/tokens";
import type { UpstreamConfig } from "@/lib/upstream/types";
import { randomId } from "../http/encoding";
import type { AuthenticatedRecord, LoadedSession } from "./record";
import type { SessionStore } from "./store";

export const REFRESH_LOCK_PREFIX = "lwc:lock:refresh:";
/** The refresh call itself is cut after this. */
const REFRESH_CALL_TIMEOUT_MS = 10_000;
/**
 * A crashed holder's lock expires after this, so the login is not stuck. It must outlast the whole
 * critical section: re-read + refresh call + the save with its retries (each store call has its own
 * deadline of a few seconds), or another instance could take the lock and resend the refresh token.
 */
const REFRESH_LOCK_TTL_MS = 30_000;
/** How long a request waits for another holder's refresh before giving up (transiently). */
export const REFRESH_WAIT_MAX_MS = 10_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Pauses between attempts to save freshly rotated tokens. */
const SAVE_RETRY_DELAYS_MS = [100, 400];

interface RefreshRequest {
  /** The session as this request saw it (its tokens identify "not refreshed since"). */
  session: LoadedSession<AuthenticatedRecord>;
  /** Refresh even when not near expiry: the backend rejected the access token (401). */
  force: boolean;
}

/** Refresh and revocation of a SIWC session's tokens (lib/server/siwc/client.ts). */
interface SiwcTokens {
  refresh(current: AuthenticatedRecord, signal?: AbortSignal): Promise<AuthenticatedRecord>;
  revoke(record: AuthenticatedRecord): Promise<unknown>;
}

interface Deps {
  store: KeyValueStore;
  sessions: SessionStore;
  upstream: UpstreamConfig;
  now: () => number;
  /** Told when a refresh finds the login dead (`refresh_token_invalid`): its live agent voice ends. */
  onLoginExpired?: (loginId: string) => void;
  /** Refreshes and revokes the tokens of Sign in with ChatGPT sessions; undefined when SIWC is off. */
  siwc?: SiwcTokens;
}

/**
 * Refresh tokens rotate and are single-use, so a login must be refreshed by exactly one caller at a
 * time across every instance: (1) in-process, concurrent callers for one login share a promise;
 * (2) across instances, a lock in the shared store; the holder re-reads the record and refreshes
 * only if nobody did meanwhile, so a refresh token is never sent upstream twice.
 */
export function createRefreshCoordinator(deps: Deps) {
  const inFlight = new Map<string, Promise<AuthenticatedRecord>>();
  /**
   * Tokens this instance rotated but could not save (the store failed the write every time), by
   * loginId, with the refresh token they replaced. The old refresh token is now dead upstream, so
   * the next refresh of that login here uses these instead of sending it again.
   */
  const unsaved = new Map<string, { replaced: string; tokens: AuthenticatedRecord["tokens"]; siwc: AuthenticatedRecord["siwc"] }>();

  /** Done = someone refreshed since we looked, or (unforced) the tokens are not near expiry. */
  function alreadyFresh(current: AuthenticatedRecord, seen: AuthenticatedRecord, force: boolean): boolean {
    if (current.tokens.refreshToken !== seen.tokens.refreshToken) return true;
    if (current.tokens.accessToken !== seen.tokens.accessToken) return true;
    return !force && !needsRefresh(current.tokens, deps.now());
  }

  const sessionEnded = () =>
    new ProviderAuthError("refresh_token_invalid", "The session ended while its tokens were being refreshed");

  async function reread(sessionId: string): Promise<{ current: AuthenticatedRecord; sealed: string }> {
    const loaded = await deps.sessions.loadSealed(sessionId);
    // Another holder found the refresh token dead and deleted the session (or the user signed out).
    if (loaded?.record.state !== "authenticated") throw sessionEnded();
    return { current: loaded.record, sealed: loaded.sealed };
  }

  /**
   * The session was deleted (sign-out) while we refreshed: the tokens just rotated must not outlive
   * it, and sign-out could only revoke the refresh token they replaced, so revoke the new one here.
   */
  async function discardRotated(updated: AuthenticatedRecord): Promise<never> {
    unsaved.delete(updated.loginId);
    if (updated.siwc) await deps.siwc?.revoke(updated);
    else await revokeRefreshToken(deps.upstream, updated.tokens.refreshToken);
    throw sessionEnded();
  }

  /**
   * Saves rotated tokens only over the record they were rotated from (a compare-and-set, so a
   * sign-out meanwhile is never undone), retrying a failed write: losing them would make the next
   * caller resend a dead token.
   */
  async function saveRotated(sessionId: string, sealed: string, updated: AuthenticatedRecord, replaced: string): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        if (!(await deps.sessions.saveIfUnchanged(sessionId, sealed, updated))) {
          // An earlier attempt may have been written after all (its reply was lost): then we are done.
          const now = await deps.sessions.load(sessionId);
          if (now?.state !== "authenticated" || now.tokens.refreshToken !== updated.tokens.refreshToken) {
            await discardRotated(updated);
          }
        }
        unsaved.delete(updated.loginId);
        return;
      } catch (error) {
        if (isRefreshTokenInvalid(error)) throw error;
        const delay = SAVE_RETRY_DELAYS_MS[attempt];
        if (delay === undefined) {
          unsaved.set(updated.loginId, { replaced, tokens: updated.tokens, siwc: updated.siwc });
          throw error;
        }
        await sleep(delay);
      }
    }
  }

  async function refreshHoldingLock(sessionId: string, seen: AuthenticatedRecord, force: boolean) {
    const { current, sealed } = await reread(sessionId);
    if (alreadyFresh(current, seen, force)) return current;
    const rescued = unsaved.get(current.loginId);
    if (rescued?.replaced === current.tokens.refreshToken) {
      const updated: AuthenticatedRecord = { ...current, tokens: rescued.tokens, ...(rescued.siwc ? { siwc: rescued.siwc } : {}) };
      await saveRotated(sessionId, sealed, updated, rescued.replaced);
      return updated;
    }
    let updated: AuthenticatedRecord;
    try {
      updated = await refreshRecord(current, AbortSignal.timeout(REFRESH_CALL_TIMEOUT_MS));
    } catch (error) {
      if (isRefreshTokenInvalid(error)) await deps.sessions.delete(sessionId);
      if (error instanceof DOMException) {
        throw new ProviderAuthError("network_error", "Token refresh timed out", { cause: error });
      }
      throw error;
    }
    if (updated === current) return current;
    await saveRotated(sessionId, sealed, updated, current.tokens.refreshToken);
    return updated;
  }

  /** The record with fresh tokens: the device login's refresh, or SIWC's for a SIWC session. */
  async function refreshRecord(current: AuthenticatedRecord, signal: AbortSignal): Promise<AuthenticatedRecord> {
    if (current.siwc) {
      if (!deps.siwc) throw new ProviderAuthError("refresh_token_invalid", "Sign in with ChatGPT is turned off on this server");
      return deps.siwc.refresh(current, signal);
    }
    return { ...current, tokens: await refreshTokenSet(deps.upstream, current.tokens, { signal }) };
  }

  async function waitForRelease(lockKey: string, deadline: number): Promise<void> {
    let delay = 20;
    while ((await deps.store.get(lockKey)) !== null) {
      if (Date.now() >= deadline) {
        throw new ProviderAuthError("token_refresh_failed", "Timed out waiting for a token refresh in progress");
      }
      await sleep(delay);
      delay = Math.min(delay * 2, 250);
    }
  }

  /** Runs `work` holding the login's refresh lock (waiting for a holder elsewhere to finish). */
  async function withRefreshLock<T>(loginId: string, work: () => Promise<T>): Promise<T> {
    const lockKey = `${REFRESH_LOCK_PREFIX}${loginId}`;
    const lockValue = randomId(16);
    const deadline = Date.now() + REFRESH_WAIT_MAX_MS;
    while (!(await deps.store.setIfAbsent(lockKey, lockValue, REFRESH_LOCK_TTL_MS))) {
      await waitForRelease(lockKey, deadline);
    }
    try {
      return await work();
    } finally {
      // Rotated tokens this instance could not save: keep other instances out until the lock expires
      // rather than let them resend the refresh token those tokens replaced.
      if (!unsaved.has(loginId)) await deps.store.deleteIfEquals(lockKey, lockValue).catch(() => undefined);
    }
  }

  function refreshAcrossInstances({ session, force }: RefreshRequest): Promise<AuthenticatedRecord> {
    // A waiter that gets the lock after another holder re-reads and finds the tokens already fresh.
    return withRefreshLock(session.record.loginId, () => refreshHoldingLock(session.id, session.record, force));
  }

  return {
    /**
     * Runs `work` while no refresh of this login runs anywhere: waits for this instance's refresh and
     * holds the cross-instance lock. For sign-out, so a refresh finishing meanwhile cannot write the
     * session back. Throws `token_refresh_failed` when another holder keeps the lock too long.
     */
    async exclusive<T>(loginId: string, work: () => Promise<T>): Promise<T> {
      await inFlight.get(loginId)?.catch(() => undefined);
      return withRefreshLock(loginId, work);
    },
    /**
     * Fresh tokens for the session. Throws `refresh_token_invalid` (the session is then deleted),
     * `token_refresh_failed` or `network_error` (nothing deleted; retry later).
     */
    refreshSingleFlight(request: RefreshRequest): Promise<AuthenticatedRecord> {
      const loginId = request.session.record.loginId;
      const existing = inFlight.get(loginId);
      if (existing) return existing;
      const running = refreshAcrossInstances(request).finally(() => inFlight.delete(loginId));
      inFlight.set(loginId, running);
      running.catch((error: unknown) => {
        if (isRefreshTokenInvalid(error)) deps.onLoginExpired?.(loginId);
      });
      return running;
    },
  };
}

export type RefreshCoordinator = ReturnType<typeof createRefreshCoordinator>;
