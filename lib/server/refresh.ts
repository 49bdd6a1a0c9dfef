import type { KeyValueStore } from "@/lib/stores/types";
import { ProviderAuthError, isRefreshTokenInvalid } from "@/lib/upstream/errors";
import { needsRefresh, refreshTokenSet } from "@/lib/upstream/tokens";
import type { UpstreamConfig } from "@/lib/upstream/types";
import { randomId } from "./encoding";
import type { AuthenticatedRecord, LoadedSession } from "./session-record";
import type { SessionStore } from "./session-store";

export const REFRESH_LOCK_PREFIX = "lwc:lock:refresh:";
/** A crashed holder's lock expires after this, so the login is not stuck. */
export const REFRESH_LOCK_TTL_MS = 15_000;
/** The refresh call itself must end well before the lock could expire under it. */
export const REFRESH_CALL_TIMEOUT_MS = 10_000;
/** How long a request waits for another holder's refresh before giving up (transiently). */
export const REFRESH_WAIT_MAX_MS = 10_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface RefreshRequest {
  /** The session as this request saw it (its tokens identify "not refreshed since"). */
  session: LoadedSession<AuthenticatedRecord>;
  /** Refresh even when not near expiry: the backend rejected the access token (401). */
  force: boolean;
}

interface Deps {
  store: KeyValueStore;
  sessions: SessionStore;
  upstream: UpstreamConfig;
  now: () => number;
}

/**
 * Refresh tokens rotate and are single-use, so a login must be refreshed by exactly one caller at a
 * time across every instance: (1) in-process, concurrent callers for one login share a promise;
 * (2) across instances, a lock in the shared store; the holder re-reads the record and refreshes
 * only if nobody did meanwhile, so a refresh token is never sent upstream twice.
 */
export function createRefreshCoordinator(deps: Deps) {
  const inFlight = new Map<string, Promise<AuthenticatedRecord>>();

  /** Done = someone refreshed since we looked, or (unforced) the tokens are not near expiry. */
  function alreadyFresh(current: AuthenticatedRecord, seen: AuthenticatedRecord, force: boolean): boolean {
    if (current.tokens.refreshToken !== seen.tokens.refreshToken) return true;
    if (current.tokens.accessToken !== seen.tokens.accessToken) return true;
    return !force && !needsRefresh(current.tokens, deps.now());
  }

  async function reread(sessionId: string): Promise<AuthenticatedRecord> {
    const current = await deps.sessions.load(sessionId);
    if (current?.state !== "authenticated") {
      // Another holder found the refresh token dead and deleted the session (or the user signed out).
      throw new ProviderAuthError("refresh_token_invalid", "The session ended while its tokens were being refreshed");
    }
    return current;
  }

  async function refreshHoldingLock(sessionId: string, seen: AuthenticatedRecord, force: boolean) {
    const current = await reread(sessionId);
    if (alreadyFresh(current, seen, force)) return current;
    let tokens;
    try {
      tokens = await refreshTokenSet(deps.upstream, current.tokens, {
        signal: AbortSignal.timeout(REFRESH_CALL_TIMEOUT_MS),
      });
    } catch (error) {
      if (isRefreshTokenInvalid(error)) await deps.sessions.delete(sessionId);
      if (error instanceof DOMException) {
        throw new ProviderAuthError("network_error", "Token refresh timed out", { cause: error });
      }
      throw error;
    }
    const updated: AuthenticatedRecord = { ...current, tokens };
    await deps.sessions.save(sessionId, updated);
    return updated;
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

  async function refreshAcrossInstances({ session, force }: RefreshRequest): Promise<AuthenticatedRecord> {
    const lockKey = `${REFRESH_LOCK_PREFIX}${session.record.loginId}`;
    const deadline = Date.now() + REFRESH_WAIT_MAX_MS;
    for (;;) {
      const lockValue = randomId(16);
      if (await deps.store.setIfAbsent(lockKey, lockValue, REFRESH_LOCK_TTL_MS)) {
        try {
          return await refreshHoldingLock(session.id, session.record, force);
        } finally {
          await deps.store.deleteIfEquals(lockKey, lockValue).catch(() => undefined);
        }
      }
      await waitForRelease(lockKey, deadline);
      const current = await reread(session.id);
      if (alreadyFresh(current, session.record, force)) return current;
      // The holder failed transiently: try to take the lock ourselves.
    }
  }

  return {
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
      return running;
    },
  };
}

export type RefreshCoordinator = ReturnType<typeof createRefreshCoordinator>;
