import { isProviderAuthError } from "@/lib/upstream/errors";
import type { StateOutcome } from "../device-login";
import { jsonResponse } from "../json";
import { toPublicState } from "../public-state";
import type { RouteHandler } from "../router";
import type { SessionManager } from "../session-manager";
import type { ServerContext } from "../context";

function stateResponse(outcome: StateOutcome): Response {
  const headers = new Headers();
  if (outcome.setCookie) headers.append("set-cookie", outcome.setCookie);
  return jsonResponse(outcome.state, { headers });
}

/** /login, /status, /session and /logout: each answers the public session state. */
export function createLoginRoutes(ctx: ServerContext, manager: SessionManager) {
  const login: RouteHandler = async (request) => {
    const existing = await manager.read(request);
    try {
      const outcome = await manager.startLogin(request, existing, ctx.options.clientAddress(request));
      if ("rateLimited" in outcome) {
        return jsonResponse(
          {
            status: "error",
            error: "rate_limited",
            message: "Too many sign-in attempts from this address. Try again shortly.",
            retryAfterSeconds: outcome.retryAfterSeconds,
          },
          { status: 429, headers: { "retry-after": String(outcome.retryAfterSeconds) } },
        );
      }
      return stateResponse(outcome);
    } catch (error) {
      // device_code_disabled, device_code_request_failed or network_error: upstream trouble, not ours.
      if (!isProviderAuthError(error)) throw error;
      return jsonResponse({ status: "error", error: error.code, message: error.message }, { status: 502 });
    }
  };

  const status: RouteHandler = async (request) => stateResponse(await manager.advance(request, await manager.read(request)));

  // Never polls, never refreshes, never writes.
  const session: RouteHandler = async (request) =>
    jsonResponse(toPublicState((await manager.read(request))?.record ?? null, ctx.options.now()));

  const logout: RouteHandler = async (request) => {
    const { clearCookie } = await manager.logout(request);
    return jsonResponse({ status: "unauthenticated" }, { headers: { "set-cookie": clearCookie } });
  };

  return { login, status, session, logout };
}
