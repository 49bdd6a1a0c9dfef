import { sendJson } from "../http-util";
import type { SiwcHandler } from "./context";
import { ALL_SCOPES } from "./state";

export const AUTHORIZE_PATH = "/api/accounts/authorize";
export const TOKEN_PATH = "/api/accounts/oauth/token";
export const REVOKE_PATH = "/api/accounts/oauth/revoke";
export const JWKS_PATH = "/.well-known/jwks.json";
export const DISCOVERY_PATH = "/.well-known/openid-configuration";

/** GET /siwc/.well-known/openid-configuration */
export const handleDiscovery: SiwcHandler = (siwc, call) => {
  if (siwc.switches.take("discovery_server_error")) return sendJson(call.response, 500, { error: "server_error" });
  const issuer = siwc.issuer();
  sendJson(call.response, 200, {
    issuer,
    authorization_endpoint: `${issuer}${AUTHORIZE_PATH}`,
    token_endpoint: `${issuer}${TOKEN_PATH}`,
    jwks_uri: `${issuer}${JWKS_PATH}`,
    revocation_endpoint: `${issuer}${REVOKE_PATH}`,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    scopes_supported: ALL_SCOPES,
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
  });
};

/** GET /siwc/.well-known/jwks.json */
export const handleJwks: SiwcHandler = (siwc, call) => {
  if (siwc.switches.take("jwks_server_error")) return sendJson(call.response, 503, { error: "temporarily_unavailable" });
  if (siwc.switches.take("jwks_empty")) return sendJson(call.response, 200, { keys: [] });
  sendJson(call.response, 200, siwc.key.jwks(), { "cache-control": "public, max-age=300" });
};
