import { sendJson } from "./http-util";
import type { MockContext, RouteCall } from "./context";

interface BackendCaller {
  accountId: string;
  plan: string;
}

function bearerToken(call: RouteCall): string | undefined {
  const header = call.request.headers.authorization ?? "";
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

/** The account a request claims to be, before checking anything (for per-account faults). */
export function claimedAccountId(context: MockContext, call: RouteCall): string | undefined {
  const header = call.request.headers["chatgpt-account-id"];
  if (typeof header === "string" && header.length > 0) return header;
  const token = bearerToken(call);
  return token ? context.tokens.unverifiedAccountId(token) : undefined;
}

export function sendUnauthorized(call: RouteCall, message: string, code: string): void {
  sendJson(call.response, 401, {
    error: { message, type: "invalid_request_error", code, param: null },
    status: 401,
  });
}

/** Authenticate a backend call like the real backend; answers the error itself and returns undefined. */
export function authenticateBackendCall(context: MockContext, call: RouteCall): BackendCaller | undefined {
  const token = bearerToken(call);
  if (!token) {
    sendUnauthorized(call, "Missing bearer authentication in header.", "missing_authorization");
    return undefined;
  }
  const verified = context.tokens.verifyAccessToken(token);
  if (!verified.ok) {
    if (verified.reason === "expired") {
      sendUnauthorized(call, "Provided authentication token is expired. Please try signing in again.", "token_expired");
    } else {
      sendUnauthorized(call, "Could not parse your authentication token. Please try signing in again.", "token_invalid");
    }
    return undefined;
  }
  const accountHeader = call.request.headers["chatgpt-account-id"];
  if (typeof accountHeader !== "string" || accountHeader.length === 0) {
    sendJson(call.response, 400, { detail: "Missing ChatGPT-Account-ID header." });
    return undefined;
  }
  if (accountHeader !== verified.claims.accountId) {
    sendJson(call.response, 403, { detail: "You do not have access to this account (ChatGPT-Account-ID does not match the token)." });
    return undefined;
  }
  return { accountId: verified.claims.accountId, plan: verified.claims.plan };
}
