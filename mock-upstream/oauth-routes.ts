import { MOCK_CLIENT_ID, type MockContext, type RouteCall, type RouteHandler } from "./context";
import { isRecord, sendJson } from "./http-util";

function oauthError(call: RouteCall, status: number, error: string, description: string): void {
  sendJson(call.response, status, { error, error_description: description });
}

function refreshError(call: RouteCall, status: number, code: string, message: string): void {
  sendJson(call.response, status, { error: { code, message, type: "invalid_request_error", param: null } });
}

/** POST /oauth/token: authorization_code must be form-encoded, refresh_token must be JSON (like upstream). */
export const handleToken: RouteHandler = (context, call) => {
  const body = isRecord(call.body.value) ? call.body.value : undefined;
  const grantType = body?.grant_type;
  if (grantType === "authorization_code") {
    if (call.body.kind !== "form") {
      return oauthError(call, 400, "invalid_request", "The authorization_code grant must be sent as application/x-www-form-urlencoded.");
    }
    return exchangeCode(context, call, body as Record<string, string>);
  }
  if (grantType === "refresh_token") {
    if (call.body.kind !== "json") {
      return refreshError(call, 400, "invalid_request", "The refresh_token grant must be sent as application/json.");
    }
    return refresh(context, call, body!);
  }
  if (body === undefined) return oauthError(call, 400, "invalid_request", "Missing request body.");
  return oauthError(call, 400, "unsupported_grant_type", "Unsupported grant_type.");
};

function exchangeCode(context: MockContext, call: RouteCall, form: Record<string, string>): void {
  if (form.client_id !== MOCK_CLIENT_ID) return oauthError(call, 401, "invalid_client", "Unknown or missing client_id.");
  if (!form.code || !form.code_verifier) {
    return oauthError(call, 400, "invalid_request", "code and code_verifier are required.");
  }
  if (form.redirect_uri !== `${context.issuer}/deviceauth/callback`) {
    return oauthError(call, 400, "invalid_grant", "redirect_uri does not match the one registered for this client.");
  }
  const exchanged = context.devices.exchange(form.code, form.code_verifier);
  if (!exchanged.ok) return oauthError(call, 400, "invalid_grant", exchanged.reason);
  sendJson(call.response, 200, context.tokens.issueForLogin(exchanged.account));
}

function refresh(context: MockContext, call: RouteCall, body: Record<string, unknown>): void {
  if (body.client_id !== MOCK_CLIENT_ID) return refreshError(call, 401, "invalid_client", "Unknown or missing client_id.");
  if (typeof body.refresh_token !== "string" || body.refresh_token.length === 0) {
    return refreshError(call, 400, "invalid_request", "refresh_token is required.");
  }
  const accountId = context.tokens.accountOfRefreshToken(body.refresh_token)?.accountId;
  if (context.faults.take("refresh_server_error", accountId)) {
    return sendJson(call.response, 500, { error: { code: "internal_error", message: "Internal server error" } });
  }
  if (context.faults.take("dead_refresh_token", accountId)) {
    context.tokens.revoke(body.refresh_token);
    return refreshError(call, 401, "refresh_token_invalidated", "Your refresh token has been invalidated. Please try signing in again.");
  }
  const outcome = context.tokens.refresh(body.refresh_token);
  if (!outcome.ok) return refreshError(call, 401, outcome.code, outcome.message);
  sendJson(call.response, 200, outcome.tokens);
}

/** POST /oauth/revoke, JSON {token, token_type_hint, client_id}. Unknown tokens are fine (RFC 7009). */
export const handleRevoke: RouteHandler = (context, call) => {
  const body = call.body.value;
  if (call.body.kind !== "json" || !isRecord(body)) {
    return oauthError(call, 400, "invalid_request", "Expected a JSON body.");
  }
  if (body.client_id !== MOCK_CLIENT_ID) return oauthError(call, 401, "invalid_client", "Unknown or missing client_id.");
  if (typeof body.token !== "string" || body.token.length === 0) {
    return oauthError(call, 400, "invalid_request", "token is required.");
  }
  context.tokens.revoke(body.token);
  sendJson(call.response, 200, {});
};
