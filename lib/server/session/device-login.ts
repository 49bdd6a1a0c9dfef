import "server-only";
import {
  exchangeAuthorizationCode,
  pollDeviceAuthorization,
  requestDeviceCode,
} from "@/lib/upstream/device-flow";
import type { ApiErrorCode } from "@/lib/error-codes";
import { ProviderAuthError, isProviderAuthError } from "@/lib/upstream/errors";
import { readAccountInfo } from "@/lib/upstream/jwt";
import { revokeRefreshToken } from "@/lib/upstream/tokens";
import type { DevicePollResult } from "@/lib/upstream/types";
import type { ServerContext } from "../context";
import { serializeSessionCookie } from "../http/cookies";
import { randomId } from "../http/encoding";
import { retryAfterSeconds } from "../http/api-error";
import { LOG_PREFIX } from "@/lib/logger";
import { newLoginNonce, optsInToLoginNonce, ownsLogin } from "./login-nonce";
import { AUTHORIZATION_EXPIRED_MESSAGE, toPublicState, type PublicSessionState } from "./public-state";
import type { LoadedSession, MovedRecord, PendingRecord, SessionRecord } from "./record";
import { upstreamOriginForLog } from "../http/upstream-log";

const POLL_LOCK_PREFIX = "lwc:lock:poll:";
const POLL_LOCK_MARGIN_MS = 5_000;

export interface StateOutcome {
  state: PublicSessionState;
  /** A Set-Cookie value when the session id was created or rotated. */
  setCookie?: string;
  /** A bound pending login's tab secret, sent back once in the x-lwc-login-nonce reply header. */
  loginNonce?: string;
}

export type LoginOutcome =
  | StateOutcome
  /** `scope: "all"` is the backstop across every client, not this client's own limit. */
  | { rateLimited: true; retryAfterSeconds: number; scope: "client" | "all" };

/** POST /login moves one pending login to a new session id at most this often per window. */
export const LOGIN_REUSE_RATE_LIMIT = { limit: 20, windowMs: 60_000 };

/** A login that has not signed in is kept this long after its code runs out (so /session can say "expired"). */
const UNFINISHED_LOGIN_GRACE_MS = 60 * 60_000;

/**
 * How long the old session id of a moved login still answers POST /login (with the login's state,
 * no cookie). Requests sent together with the one that moved it arrive within milliseconds; a
 * request that comes later with the old cookie finds no session and starts a new login.
 */
const MOVED_LOGIN_GRACE_MS = 10_000;

/**
 * POST /login. An authenticated session is answered as is. A still-valid pending login that this
 * request may reuse (see `ownsLogin`: the cookie alone for a login started without the nonce, the
 * nonce for a bound one) is reused without an upstream call; anything else asks upstream for a new
 * code (counted against the login limits) under a NEW session id (new cookie, old record gone). A
 * reuse moves the login to a new session id too, so a session id planted before sign-in is
 * worthless. Upstream trouble throws the ProviderAuthError (device_code_disabled,
 * device_code_request_failed, network_error); the session is then left as it was.
 */
export async function startLogin(
  ctx: ServerContext,
  request: Request,
  existing: LoadedSession | null,
  limitKeys: { client: string; prefix: string },
): Promise<LoginOutcome> {
  const { options } = ctx;
  const now = options.now();
  const record = existing?.record;
  if (record?.state === "authenticated") return { state: toPublicState(record, now) };
  if ((record?.state === "pending" || record?.state === "moved") && now < record.device.expiresAt && ownsLogin(request, record)) {
    return reusePending(ctx, request, existing as LoadedSession<PendingRecord | MovedRecord>);
  }

  // The per-address limit, then one per address prefix (so one client with many addresses of one
  // network cannot use up the backstop), then the backstop across all clients.
  for (const [limiter, key, scope] of [
    [ctx.loginLimiter, limitKeys.client, "client"],
    [ctx.loginLimiter, `prefix:${limitKeys.prefix}`, "client"],
    [ctx.loginGlobalLimiter, "all", "all"],
  ] as const) {
    if (!limiter) continue;
    const limit = await limiter.limit(key);
    if (!limit.success) return rateLimited(limit.reset, now, scope);
  }
  const device = await requestDeviceCode(options.upstream, { now });
  const pending: PendingRecord = {
    version: 1,
    loginId: randomId(16),
    createdAt: now,
    // Until sign-in the record only needs to outlive its code; sign-in starts the real session lifetime.
    expiresAt: Math.min(now + options.sessionTtlMs, device.expiresAt + UNFINISHED_LOGIN_GRACE_MS),
    state: "pending",
    device: optsInToLoginNonce(request) ? { ...device, nonce: newLoginNonce() } : device,
  };
  const sessionId = randomId();
  await ctx.sessions.save(sessionId, pending);
  if (existing !== null) await ctx.sessions.delete(existing.id);
  return movedTo(ctx, request, sessionId, pending);
}

function rateLimited(reset: number, now: number, scope: "client" | "all"): LoginOutcome {
  return { rateLimited: true, retryAfterSeconds: retryAfterSeconds(reset, now), scope };
}

/**
 * The same pending login under a new id. Only the request that atomically replaces the old record
 * (compared with the value it read) by a short-lived "moved" marker goes on, so concurrent requests
 * with one cookie leave exactly one live record; the others, and requests that read the marker,
 * get the state without a cookie and cause no upstream call. Counted per login in a cheap limiter.
 */
async function reusePending(
  ctx: ServerContext,
  request: Request,
  existing: LoadedSession<PendingRecord | MovedRecord>,
): Promise<LoginOutcome> {
  const now = ctx.options.now();
  if (ctx.loginReuseLimiter) {
    const limit = await ctx.loginReuseLimiter.limit(existing.record.loginId);
    if (!limit.success) return rateLimited(limit.reset, now, "client");
  }
  const pending: PendingRecord = { ...existing.record, state: "pending" };
  const stateWithoutCookie = { state: toPublicState(pending, now) };
  if (existing.record.state === "moved" || existing.sealed === undefined) return stateWithoutCookie;
  const marker: MovedRecord = { ...existing.record, state: "moved", expiresAt: now + MOVED_LOGIN_GRACE_MS };
  if (!(await ctx.sessions.saveIfUnchanged(existing.id, existing.sealed, marker))) return stateWithoutCookie;
  const { nonce } = pending.device;
  const moved: PendingRecord = nonce === undefined ? pending : { ...pending, device: { ...pending.device, nonce: newLoginNonce() } };
  const sessionId = randomId();
  await ctx.sessions.save(sessionId, moved);
  return movedTo(ctx, request, sessionId, moved);
}

async function movedTo(ctx: ServerContext, request: Request, sessionId: string, record: PendingRecord): Promise<StateOutcome> {
  const setCookie = serializeSessionCookie(request, ctx.options.cookie, await ctx.signer.sign(sessionId));
  return { state: toPublicState(record, ctx.options.now()), setCookie, loginNonce: record.device.nonce };
}

function withFailure(record: SessionRecord, state: "expired" | "error", code: ApiErrorCode, message: string): SessionRecord {
  return {
    version: 1,
    loginId: record.loginId,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    state,
    failure: { code, message },
  };
}

/** What is stored under the session's id now, as its public state (the login moved or ended meanwhile). */
async function currentState(ctx: ServerContext, session: LoadedSession): Promise<StateOutcome> {
  return { state: toPublicState(await ctx.sessions.load(session.id), ctx.options.now()) };
}

/**
 * Writes the outcome of a poll over the record this request read, only if it is still there: a
 * POST /login that moved the login meanwhile (or a sign-out) wins, so a slow poll can never bring
 * the old id back to life.
 */
async function settle(ctx: ServerContext, session: LoadedSession, next: SessionRecord): Promise<StateOutcome> {
  if (session.sealed === undefined) await ctx.sessions.save(session.id, next);
  else if (!(await ctx.sessions.saveIfUnchanged(session.id, session.sealed, next))) return currentState(ctx, session);
  return { state: toPublicState(next, ctx.options.now()) };
}

/** A poll failure that says nothing about the login (network, upstream 5xx): try again next time. */
function isTransientPollFailure(error: ProviderAuthError): boolean {
  return error.code === "network_error" || (error.status !== undefined && error.status >= 500);
}

/**
 * GET /status for a pending session: at most one upstream poll, never faster than the interval
 * (lastPollAt in the record, plus a poll lock so concurrent requests on other instances do not poll).
 * Both count from the start of the last poll, the moment the answer's nextCheckInMs points to: a
 * slow provider answer does not push the next poll back.
 */
export async function advancePending(
  ctx: ServerContext,
  request: Request,
  session: LoadedSession<PendingRecord>,
): Promise<StateOutcome> {
  const { options } = ctx;
  const { device } = session.record;
  const now = options.now();
  if (now >= device.expiresAt) {
    return settle(ctx, session, withFailure(session.record, "expired", "authorization_expired", AUTHORIZATION_EXPIRED_MESSAGE));
  }
  const intervalMs = device.intervalSeconds * 1000;
  const pendingState = { state: toPublicState(session.record, now) };
  if (device.lastPollAt !== undefined && now - device.lastPollAt < intervalMs) return pendingState;
  // The lock covers the whole poll (it may take up to the request timeout) and then stays until one
  // interval after the poll started, so a request that read the record before this poll was written
  // cannot poll again before then. Keyed by the login, not the session id: however many ids a login
  // had, it polls once per interval.
  const lockKey = `${POLL_LOCK_PREFIX}${session.record.loginId}`;
  const pollBudgetMs = Math.max(intervalMs, options.upstream.requestTimeoutMs + POLL_LOCK_MARGIN_MS);
  if (!(await options.store.setIfAbsent(lockKey, "1", pollBudgetMs))) {
    // Another request is polling for this login (or just did): the next chance is about an interval away.
    const { state } = pendingState;
    return { state: state.status === "pending" ? { ...state, nextCheckInMs: Math.max(state.nextCheckInMs, intervalMs) } : state };
  }
  try {
    return await pollOnce(ctx, request, session, now);
  } finally {
    await options.store.set(lockKey, "1", Math.max(1, now + intervalMs - options.now())).catch(() => undefined);
  }
}

async function pollOnce(
  ctx: ServerContext,
  request: Request,
  session: LoadedSession<PendingRecord>,
  now: number,
): Promise<StateOutcome> {
  const { options } = ctx;
  const { device } = session.record;
  const polled: PendingRecord = { ...session.record, device: { ...device, lastPollAt: now } };
  let result: DevicePollResult;
  try {
    result = await pollDeviceAuthorization(options.upstream, device);
  } catch (error) {
    if (!isProviderAuthError(error)) throw error;
    if (error.code === "authorization_expired") {
      return settle(ctx, session, withFailure(session.record, "expired", "authorization_expired", AUTHORIZATION_EXPIRED_MESSAGE));
    }
    if (error.code === "authorization_denied") {
      return settle(ctx, session, withFailure(session.record, "error", "authorization_denied", error.message));
    }
    if (isTransientPollFailure(error)) {
      options.logger.warn(
        `${LOG_PREFIX} device authorization poll failed, will retry: code=${error.code} status=${error.status ?? "none"}${upstreamOriginForLog(error)}`,
      );
      return settle(ctx, session, polled);
    }
    return settle(ctx, session, withFailure(session.record, "error", "token_exchange_failed", error.message));
  }
  if (result.status === "pending") return settle(ctx, session, polled);
  return signIn(ctx, request, session, result);
}

/** Approval: exchange the code, read the account, store the tokens under a NEW session id. */
async function signIn(
  ctx: ServerContext,
  request: Request,
  session: LoadedSession<PendingRecord>,
  approval: Extract<DevicePollResult, { status: "approved" }>,
): Promise<StateOutcome> {
  const { options, sessions } = ctx;
  // The approval belongs to whoever holds the login now: if it moved while this request polled (or
  // was signed out), this request exchanges nothing; the holder's own poll gets the same approval.
  if (session.sealed !== undefined && (await sessions.loadSealed(session.id))?.sealed !== session.sealed) {
    return currentState(ctx, session);
  }
  let tokens;
  let account;
  try {
    tokens = await exchangeAuthorizationCode(options.upstream, approval);
    account = readAccountInfo(tokens);
  } catch (error) {
    if (!isProviderAuthError(error)) throw error;
    const code = error.code === "invalid_token" ? "invalid_token" : "token_exchange_failed";
    return settle(ctx, session, withFailure(session.record, "error", code, error.message));
  }
  const now = options.now();
  // A new id again at sign-in: whoever held the pending id before holds nothing now.
  const newId = randomId();
  const authenticated: SessionRecord = {
    version: 1,
    loginId: session.record.loginId,
    createdAt: now,
    expiresAt: now + options.sessionTtlMs,
    state: "authenticated",
    tokens,
    account,
  };
  // Claimed atomically: of a move and this sign-in, only one wins the login.
  if (session.sealed !== undefined && !(await sessions.claim(session.id, session.sealed))) {
    await revokeRefreshToken(options.upstream, tokens.refreshToken);
    return currentState(ctx, session);
  }
  await sessions.save(newId, authenticated);
  if (session.sealed === undefined) await sessions.delete(session.id);
  const setCookie = serializeSessionCookie(request, options.cookie, await ctx.signer.sign(newId));
  return { state: toPublicState(authenticated, now), setCookie };
}
