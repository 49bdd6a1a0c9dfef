import "server-only";
import { API_ERRORS, type ApiErrorCode } from "@/lib/error-codes";
import { isProviderAuthError } from "@/lib/upstream/errors";
import type { StateOutcome } from "./device-login";
import { loginLimitKeys } from "../http/client-address";
import { errorResponse } from "../http/api-error";
import { jsonResponse, passedOnCode } from "../http/json";
import { LOG_PREFIX } from "@/lib/logger";
import { LOGIN_NONCE_HEADER } from "./login-nonce";
import { toPublicState, withHistory, withSignInChoices, type PublicSessionState, type SignInChoices } from "./public-state";
import type { RouteHandler } from "../http/router";
import type { SessionManager } from "./manager";
import type { ServerContext } from "../context";
import { describeProviderErrorForLog } from "../http/upstream-log";


const RATE_LIMIT_MESSAGES = {
  client: { error: "rate_limited", message: "Too many sign-in attempts from this address. Try again shortly." },
  all: { error: "login_busy", message: API_ERRORS.login_busy.message },
} as const satisfies Record<string, { error: ApiErrorCode; message: string }>;

/** POST /login's refusals: `{status: "error", error, message, ...}` with the code's status. */
function loginFailure(error: ApiErrorCode, message: string, extra: Record<string, unknown> = {}, headers?: HeadersInit): Response {
  return jsonResponse({ status: "error", error, message, ...extra }, { status: API_ERRORS[error].status, headers });
}

/** /login, /status, /session and /logout: each answers the public session state. */
/**
 * `signInChoices`: the sign-ins this server offers a request (lib/server/siwc/loopback.ts decides
 * where SIWC can run), undefined on a server with the default sign-in.
 */
export function createLoginRoutes(
  ctx: ServerContext,
  manager: SessionManager,
  signInChoices: (request: Request) => SignInChoices | undefined,
) {
  /** A signed-out state says which sign-ins this request may use; a signed-in one where chats are kept. */
  const forRequest = (request: Request, state: PublicSessionState) =>
    withHistory(withSignInChoices(state, signInChoices(request)), ctx.options.history);

  function stateResponse(request: Request, outcome: StateOutcome): Response {
    const headers = new Headers();
    if (outcome.setCookie) headers.append("set-cookie", outcome.setCookie);
    if (outcome.loginNonce) headers.set(LOGIN_NONCE_HEADER, outcome.loginNonce);
    return jsonResponse(forRequest(request, outcome.state), { headers });
  }

  const login: RouteHandler = async (request) => {
    if (!ctx.options.signIn.device) return errorResponse("device_login_disabled");
    const existing = await manager.read(request);
    try {
      const limitKeys = await loginLimitKeys(ctx.options.clientAddress(request));
      const outcome = await manager.startLogin(request, existing, limitKeys);
      if ("rateLimited" in outcome) {
        const { error, message } = RATE_LIMIT_MESSAGES[outcome.scope];
        const wait = outcome.retryAfterSeconds;
        return loginFailure(error, message, { retryAfterSeconds: wait }, { "retry-after": String(wait) });
      }
      return stateResponse(request, outcome);
    } catch (error) {
      // device_code_disabled, device_code_request_failed or network_error: upstream trouble, not ours.
      // The message never names the upstream address; the log line does.
      if (!isProviderAuthError(error)) throw error;
      ctx.options.logger.error(`${LOG_PREFIX} upstream /login failed: ${describeProviderErrorForLog(error)}`);
      return loginFailure(passedOnCode(error.code), error.message);
    }
  };

  const status: RouteHandler = async (request) =>
    stateResponse(request, await manager.advance(request, await manager.readOwn(request)));

  // Never polls, never refreshes, never writes.
  const session: RouteHandler = async (request) =>
    jsonResponse(forRequest(request, toPublicState((await manager.readOwn(request))?.record ?? null, ctx.options.now())));

  const logout: RouteHandler = async (request) => {
    const { clearCookie, revocation } = await manager.logout(request);
    const state = forRequest(request, { status: "unauthenticated" });
    return jsonResponse(revocation ? { ...state, revocation } : state, { headers: { "set-cookie": clearCookie } });
  };

  return { login, status, session, logout };
}
