import "server-only";
import { isProviderAuthError, isRefreshTokenInvalid } from "@/lib/upstream/errors";
import { needsRefresh, revokeRefreshToken } from "@/lib/upstream/tokens";
import type { ServerContext } from "../context";
import type { LoginLimitKeys } from "../http/client-address";
import { clearSessionCookie, readSessionCookie } from "../http/cookies";
import { advancePending, startLogin, type LoginOutcome, type StateOutcome } from "./device-login";
import { LOG_PREFIX } from "@/lib/logger";
import { ownsLogin } from "./login-nonce";
import { REFRESH_TOKEN_INVALID_MESSAGE, toPublicState, UNAUTHENTICATED } from "./public-state";
import type { AuthenticatedRecord, LoadedSession, PendingRecord } from "./record";
import { upstreamOriginForLog } from "../http/upstream-log";

/** Whether the provider confirmed a SIWC session's revocation at sign-out. */
type Revocation = "confirmed" | "unconfirmed";

/**
 * The login state machine. Transitions (see docs/server.md):
 * none --POST /login--> pending --GET /status (approved)--> authenticated (new session id)
 * pending --GET /status (code ran out / upstream says expired)--> expired
 * pending --GET /status (denied | exchange failed | no account id)--> error
 * authenticated --refresh finds the refresh token dead--> deleted (reported once as expired)
 * any --POST /logout--> deleted (unauthenticated)
 */
export function createSessionManager(ctx: ServerContext) {
  const { options, sessions, signer, refresher } = ctx;

  /** The request's session: one verified cookie value, one store read. */
  async function read(request: Request): Promise<LoadedSession | null> {
    const id = await readSessionCookie(request, options.cookie, signer);
    if (id === null) return null;
    const loaded = await sessions.loadSealed(id);
    return loaded === null ? null : { id, record: loaded.record, sealed: loaded.sealed };
  }

  /**
   * As `read`, but a pending login counts only for a request that may see it (`ownsLogin`: the
   * cookie alone for a login started without the nonce, its nonce for a bound one); for anyone else,
   * and for a moved login's old id, it is no session at all. So a client that opted in (our page)
   * is shown no code and polls nothing for a pending cookie it cannot prove it started.
   */
  async function readOwn(request: Request): Promise<LoadedSession | null> {
    const session = await read(request);
    if (session?.record.state === "moved") return null;
    if (session?.record.state === "pending" && !ownsLogin(request, session.record)) return null;
    return session;
  }

  function logRefreshFailure(error: unknown): void {
    const code = isProviderAuthError(error) ? error.code : "unknown";
    const status = isProviderAuthError(error) ? (error.status ?? "none") : "none";
    options.logger.warn(`${LOG_PREFIX} token refresh failed: code=${code} status=${status}${upstreamOriginForLog(error)}`);
  }

  /** Tokens valid for at least the refresh threshold. Throws the refresh's ProviderAuthError. */
  async function freshTokens(session: LoadedSession<AuthenticatedRecord>): Promise<AuthenticatedRecord> {
    if (!needsRefresh(session.record.tokens, options.now())) return session.record;
    try {
      return await refresher.refreshSingleFlight({ session, force: false });
    } catch (error) {
      logRefreshFailure(error);
      throw error;
    }
  }

  /** After the backend answered 401: one forced refresh (unless another request already did one). */
  async function forceRefresh(session: LoadedSession<AuthenticatedRecord>): Promise<AuthenticatedRecord> {
    try {
      return await refresher.refreshSingleFlight({ session, force: true });
    } catch (error) {
      logRefreshFailure(error);
      throw error;
    }
  }

  /** GET /status: one step of the state machine. */
  async function advance(request: Request, session: LoadedSession | null): Promise<StateOutcome> {
    const now = options.now();
    if (session === null) return { state: UNAUTHENTICATED };
    const { record } = session;
    if (record.state === "pending") return advancePending(ctx, request, session as LoadedSession<PendingRecord>);
    if (record.state !== "authenticated") return { state: toPublicState(record, now) };
    try {
      const fresh = await freshTokens(session as LoadedSession<AuthenticatedRecord>);
      return { state: toPublicState(fresh, options.now()) };
    } catch (error) {
      if (isRefreshTokenInvalid(error)) {
        return { state: { status: "expired", error: "refresh_token_invalid", message: REFRESH_TOKEN_INVALID_MESSAGE } };
      }
      // A transient refresh failure: the tokens may still work; the next call tries again.
      if (isProviderAuthError(error)) return { state: toPublicState(record, now) };
      throw error;
    }
  }

  /**
   * Deletes a signed-in session; a device login's current refresh token is revoked here (best
   * effort). Returns the record as it was, for a SIWC revocation after the lock.
   */
  async function endSignedIn(session: LoadedSession<AuthenticatedRecord>): Promise<AuthenticatedRecord> {
    const current = await sessions.load(session.id);
    await sessions.delete(session.id);
    const record = current?.state === "authenticated" ? current : session.record;
    if (!record.siwc) await revokeRefreshToken(options.upstream, record.tokens.refreshToken);
    return record;
  }

  /**
   * Ends whatever session `session` holds (sign-out, or a new sign-in replacing it). A signed-in
   * session is deleted while no refresh of its login runs anywhere, so a refresh finishing meanwhile
   * cannot write it back, and the token revoked is the current one. A SIWC session's revocation (two
   * tries, each up to 10 s) runs after the lock is released: the session is gone by then, and a
   * refresh that was waiting finds it so (and revokes what it got itself). Its outcome is returned.
   */
  async function end(session: LoadedSession | null): Promise<Revocation | undefined> {
    if (session?.record.state !== "authenticated") {
      if (session !== null) await sessions.delete(session.id);
      return undefined;
    }
    const signedIn = session as LoadedSession<AuthenticatedRecord>;
    let ended: AuthenticatedRecord;
    try {
      ended = await refresher.exclusive(signedIn.record.loginId, () => endSignedIn(signedIn));
    } catch (error) {
      // Another instance held the refresh lock too long: sign out regardless.
      if (!isProviderAuthError(error)) throw error;
      ended = await endSignedIn(signedIn);
    }
    if (!ended.siwc) return undefined;
    return ctx.siwc ? ctx.siwc.revoke(ended) : "unconfirmed";
  }

  /**
   * POST /logout: delete the record, revoke the refresh token, clear the cookie. `revocation`: for a
   * SIWC session, whether the provider confirmed the revocation.
   */
  async function logout(request: Request): Promise<{ clearCookie: string; revocation?: Revocation }> {
    const revocation = await end(await read(request));
    return { clearCookie: clearSessionCookie(request, options.cookie), ...(revocation ? { revocation } : {}) };
  }

  return {
    read,
    readOwn,
    advance,
    freshTokens,
    forceRefresh,
    logout,
    end,
    startLogin: (request: Request, existing: LoadedSession | null, limitKeys: LoginLimitKeys): Promise<LoginOutcome> =>
      startLogin(ctx, request, existing, limitKeys),
  };
}

export type SessionManager = ReturnType<typeof createSessionManager>;
