import { createHash } from "node:crypto";
import type { RouteCall } from "../context";
import { delayUnlessClosed, isRecord, sendJson } from "../http-util";
import { OPENAI_RESOURCE, type SiwcContext, type SiwcHandler } from "./context";
import { mintTokenResponse } from "./mint";
import { DYNAMIC_CLIENT_ID, PLAN_USE_SCOPE } from "./state";
import type { SiwcSwitch } from "./switches";

/** Error code -> HTTP status at the token endpoint (the real statuses are not documented). */
const ERROR_STATUS: Record<string, number> = {
  invalid_request: 400,
  unsupported_grant_type: 400,
  invalid_grant: 400,
  invalid_target: 400,
  invalid_scope: 400,
  invalid_refresh_token: 400,
  invalid_client: 401,
  token_expired: 401,
  refresh_token_expired: 401,
  refresh_token_invalidated: 401,
  refresh_token_reused: 401,
  temporarily_unavailable: 503,
};

const ERROR_SWITCHES: [SiwcSwitch, string][] = [
  ["token_invalid_grant", "invalid_grant"],
  ["token_invalid_refresh_token", "invalid_refresh_token"],
  ["token_token_expired", "token_expired"],
  ["token_refresh_token_expired", "refresh_token_expired"],
  ["token_refresh_token_invalidated", "refresh_token_invalidated"],
  ["token_invalid_client", "invalid_client"],
  ["token_temporarily_unavailable", "temporarily_unavailable"],
];

/** An error reply in the configured body style. */
function tokenError(siwc: SiwcContext, call: RouteCall, code: string, description: string): void {
  const status = ERROR_STATUS[code] ?? 400;
  const body = siwc.settings.errorStyle === "nested" ? { error: { code, message: description } } : { error: code, error_description: description };
  sendJson(call.response, status, body);
}

function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

function resourceOk(siwc: SiwcContext, resource: string | undefined): boolean {
  return resource === OPENAI_RESOURCE || resource === siwc.apiBase();
}

/** POST /siwc/api/accounts/oauth/token, form-encoded: authorization_code and refresh_token grants. */
export const handleToken: SiwcHandler = async (siwc, call) => {
  if (call.body.kind !== "form" || !isRecord(call.body.value)) {
    return tokenError(siwc, call, "invalid_request", "The body must be application/x-www-form-urlencoded.");
  }
  const form = call.body.value as Record<string, string>;
  const grant = form.grant_type;
  if (grant !== "authorization_code" && grant !== "refresh_token") {
    return tokenError(siwc, call, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token.");
  }
  for (const [name, code] of ERROR_SWITCHES) {
    if (siwc.switches.take(name, grant)) return tokenError(siwc, call, code, `Mock switch ${name}.`);
  }
  if (!form.client_id || form.client_id === DYNAMIC_CLIENT_ID || !siwc.state.registrations.has(form.client_id)) {
    return tokenError(siwc, call, "invalid_client", "Unknown or missing client_id.");
  }
  if (!resourceOk(siwc, form.resource)) return tokenError(siwc, call, "invalid_target", `resource must be ${OPENAI_RESOURCE}.`);
  return grant === "authorization_code" ? exchangeCode(siwc, call, form) : refresh(siwc, call, form);
};

async function exchangeCode(siwc: SiwcContext, call: RouteCall, form: Record<string, string>): Promise<void> {
  const code = form.code ? siwc.state.codes.get(form.code) : undefined;
  if (!code || !form.code_verifier || !form.redirect_uri) {
    return tokenError(siwc, call, code ? "invalid_request" : "invalid_grant", code ? "code_verifier and redirect_uri are required." : "Unknown code.");
  }
  // Single use: any attempt spends it.
  const firstUse = !code.used;
  code.used = true;
  if (!firstUse) return tokenError(siwc, call, "invalid_grant", "The code was already used.");
  if (code.expiresAt <= siwc.state.now()) return tokenError(siwc, call, "invalid_grant", "The code has expired.");
  if (code.clientId !== form.client_id) return tokenError(siwc, call, "invalid_grant", "The code was issued to another client.");
  if (s256(form.code_verifier) !== code.codeChallenge) return tokenError(siwc, call, "invalid_grant", "PKCE verification failed.");
  if (form.redirect_uri !== code.redirectUri) return tokenError(siwc, call, "invalid_grant", "redirect_uri does not match the authorization request.");
  if (form.resource !== code.resource) return tokenError(siwc, call, "invalid_target", "resource does not match the authorization request.");
  const family = siwc.state.startFamily(code);
  sendJson(call.response, 200, await mintTokenResponse(siwc, { family, nonce: code.nonce, withIdToken: true, withScope: true }));
}

async function refresh(siwc: SiwcContext, call: RouteCall, form: Record<string, string>): Promise<void> {
  const found = form.refresh_token ? siwc.state.refreshRecord(form.refresh_token) : undefined;
  if (!found) return tokenError(siwc, call, "invalid_refresh_token", "Unknown refresh token.");
  const { record, family } = found;
  if (family.clientId !== form.client_id) return tokenError(siwc, call, "invalid_grant", "The refresh token was issued to another client.");
  if (record.used) {
    if (siwc.settings.reuseKillsFamily) siwc.state.endFamily(family, "reused");
    return tokenError(siwc, call, "refresh_token_reused", "Your refresh token has already been used. Please sign in again.");
  }
  if (family.ended !== null) return tokenError(siwc, call, "refresh_token_invalidated", "Your refresh token has been invalidated. Please sign in again.");
  if (record.expiresAt <= siwc.state.now()) return tokenError(siwc, call, "refresh_token_expired", "Your refresh token has expired. Please sign in again.");
  if (form.scope !== undefined && form.scope.split(" ").some((scope) => !family.scopes.includes(scope))) {
    return tokenError(siwc, call, "invalid_scope", "A refresh cannot widen the grant.");
  }
  record.used = true;
  family.rotations += 1;
  // The person took plan usage back: this reply and the family's later ones are granted without it.
  if (siwc.switches.take("refresh_without_plan_usage")) family.scopes = family.scopes.filter((scope) => scope !== PLAN_USE_SCOPE);
  const otherSub = siwc.switches.take("refresh_other_account") ? siwc.state.account("someone-else@example.com").sub : undefined;
  const reply = await mintTokenResponse(siwc, {
    family,
    withIdToken: siwc.settings.refreshIdToken || otherSub !== undefined,
    withScope: siwc.settings.refreshScope,
    idTokenSub: otherSub,
  });
  if (siwc.switches.take("token_drop_after_rotation", "refresh_token")) {
    // Rotated: the old token is spent and the new one exists, but the reply is lost on the way.
    call.markServerCut();
    call.response.destroy();
    return;
  }
  sendJson(call.response, 200, reply);
}

/** POST /siwc/api/accounts/oauth/revoke, form `token`, `token_type_hint`, `client_id`: empty 200, also for unknown tokens. */
export const handleRevoke: SiwcHandler = async (siwc, call) => {
  if (call.body.kind !== "form" || !isRecord(call.body.value)) {
    return tokenError(siwc, call, "invalid_request", "The body must be application/x-www-form-urlencoded.");
  }
  const form = call.body.value as Record<string, string>;
  if (!form.token) return tokenError(siwc, call, "invalid_request", "token is required.");
  if (siwc.switches.take("revoke_server_error")) return sendJson(call.response, 503, { error: "temporarily_unavailable" });
  if (siwc.switches.take("revoke_timeout")) {
    // Never answers: waits until the client gives up (or the mock closes).
    await delayUnlessClosed(call.response, 2_147_483_647);
    return;
  }
  const found = siwc.state.refreshRecord(form.token);
  if (found) siwc.state.endFamily(found.family, "revoked");
  call.response.writeHead(200, { "content-length": 0, "cache-control": "no-store" });
  call.response.end();
};
