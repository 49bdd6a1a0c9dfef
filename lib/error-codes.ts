/**
 * Every `error` code the API answers with (`{error: code, …}`, see docs/api.md#errors), shared by
 * the server's replies and the browser's handling of them, and below it `API_ERRORS`: each code's
 * status and default sentence, which the server's replies take (lib/server/http/api-error.ts), so
 * no route picks a status of its own. A reply can only carry a code from this list, the browser's
 * `case "…"` labels are checked against it, and `lib/error-codes.test.ts` fails when docs/api.md's
 * Errors table (its codes and their statuses) disagrees. Adding a code: add it to the list and to
 * the table (the compiler asks for both), then document it in that table.
 *
 * The list is a plain array so that the browser's bundle carries the names only: the table is
 * read by server code alone.
 */
export const API_ERROR_CODES = [
  // The request itself
  "invalid_responses_request",
  "invalid_service_tier",
  "invalid_reasoning_effort",
  "invalid_realtime_request",
  "invalid_realtime_confirmation",
  "responses_request_too_large",
  "realtime_request_too_large",
  // The body of a route of your own read by readJsonRequest (lib/server, e.g. /api/example/haiku)
  "invalid_request",
  "request_too_large",
  // Who may call, and how often
  "not_authenticated",
  "origin_not_allowed",
  "origin_required",
  "rate_limited",
  "login_busy",
  // Models
  "model_not_allowed",
  "client_version_outdated",
  "model_not_supported",
  // Tools
  "web_search_disabled",
  // Voice and agent voice
  "realtime_mode_not_allowed",
  "realtime_transport_not_allowed",
  "realtime_model_not_allowed",
  "realtime_auth_not_configured",
  "realtime_auth_unavailable",
  "realtime_busy",
  "realtime_start_superseded",
  "realtime_session_not_found",
  "realtime_app_server_start_failed",
  "realtime_confirmation_failed",
  "realtime_confirmation_not_configured",
  "agent_sandbox_unavailable",
  // The provider failed or refused (its own status where it answered, else 502)
  "device_code_disabled",
  "device_code_request_failed",
  "network_error",
  "token_refresh_failed",
  "models_request_failed",
  "responses_request_failed",
  "realtime_request_failed",
  // A session state's `error` (states `expired` and `error`)
  "authorization_expired",
  "refresh_token_invalid",
  "authorization_denied",
  "token_exchange_failed",
  "invalid_token",
  // Sign-in methods and Sign in with ChatGPT (the callback's failures reach the page as ?signin_error=)
  "device_login_disabled",
  "siwc_disabled",
  "siwc_requires_loopback",
  "siwc_navigation_required",
  "siwc_state_invalid",
  "siwc_access_denied",
  "siwc_registration_incomplete",
  "siwc_client_mismatch",
  "account_mismatch",
  "invalid_id_token",
  "identity_verification_unavailable",
  "siwc_exchange_failed",
  // A Sign in with ChatGPT session's model calls (spec siwc.md §8-§9)
  "plan_usage_not_granted",
  "not_available_with_siwc",
  "unsupported_field",
  "plan_usage_limit_reached",
  "plan_not_eligible",
  "plan_usage_unavailable",
  "plan_route_not_supported",
  "plan_authorization_invalid",
  "plan_access_restricted",
  // Chat history (docs/api.md#chat-history)
  "invalid_history_request",
  "history_request_too_large",
  "history_disabled",
  "history_not_found",
  "history_quota_exceeded",
  "history_unavailable",
  "share_not_found",
  "share_too_large",
  // Ours
  "store_unavailable",
  "internal_error",
] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** How the server answers one code. */
interface ApiErrorEntry {
  /** The reply's status (200 for a code a session state carries, 303 for a sign-in failure sent to the page). */
  readonly status: number;
  /** Other statuses the code is answered with; the place that refuses picks one (docs/api.md names when). */
  readonly alsoStatus?: readonly number[];
  /** A provider's failure passed on: its own status where it answered, else `status`. */
  readonly upstream?: true;
  /** The reply's `message` when the place that refuses gives none. */
  readonly message?: string;
}

const SIGN_IN_FIRST = "Sign in first: this request has no authenticated session.";

/** Each code's status and default sentence: the one place a reply's status comes from. */
export const API_ERRORS = {
  invalid_responses_request: { status: 400 },
  invalid_service_tier: { status: 400 },
  invalid_reasoning_effort: { status: 400 },
  invalid_realtime_request: { status: 400 },
  invalid_realtime_confirmation: { status: 400 },
  responses_request_too_large: { status: 413 },
  realtime_request_too_large: { status: 413 },
  invalid_request: { status: 400 },
  request_too_large: { status: 413 },
  not_authenticated: { status: 401, message: SIGN_IN_FIRST },
  origin_not_allowed: { status: 403 },
  origin_required: {
    status: 403,
    message:
      'proxyFetch needs the browser request\'s Origin header for the CSRF check; pass { csrf: "skip-server-call" } for a call no browser request started.',
  },
  rate_limited: { status: 429 },
  login_busy: { status: 429, message: "Too many sign-ins are being started right now. Try again shortly." },
  model_not_allowed: { status: 403 },
  client_version_outdated: { status: 400 },
  model_not_supported: { status: 400, upstream: true },
  web_search_disabled: { status: 403, message: "Web search is turned off on this server (LWC_WEB_SEARCH=off)." },
  realtime_mode_not_allowed: { status: 403 },
  realtime_transport_not_allowed: { status: 403 },
  realtime_model_not_allowed: { status: 403 },
  realtime_auth_not_configured: { status: 501 },
  realtime_auth_unavailable: { status: 403 },
  realtime_busy: { status: 429, alsoStatus: [503] },
  realtime_start_superseded: { status: 409 },
  realtime_session_not_found: { status: 404 },
  realtime_app_server_start_failed: { status: 502 },
  realtime_confirmation_failed: { status: 409, alsoStatus: [500] },
  realtime_confirmation_not_configured: { status: 501 },
  agent_sandbox_unavailable: {
    status: 503,
    message:
      "Agent voice is unavailable on this server: the sandbox its agent must run in cannot start. The server's log says how to fix it.",
  },
  device_code_disabled: { status: 502 },
  device_code_request_failed: { status: 502 },
  network_error: { status: 502 },
  token_refresh_failed: { status: 502 },
  models_request_failed: { status: 502, upstream: true },
  responses_request_failed: { status: 502, upstream: true },
  realtime_request_failed: { status: 502, upstream: true },
  authorization_expired: { status: 200 },
  refresh_token_invalid: { status: 200 },
  authorization_denied: { status: 200 },
  token_exchange_failed: { status: 200 },
  invalid_token: { status: 200 },
  device_login_disabled: { status: 403, message: "Sign-in with a device code is turned off on this server." },
  siwc_disabled: { status: 403, message: "Sign in with ChatGPT is turned off on this server." },
  siwc_requires_loopback: {
    status: 403,
    message:
      "Sign in with ChatGPT with plan usage works only when this app runs on your own machine and is opened at http://127.0.0.1 or http://localhost.",
  },
  siwc_navigation_required: { status: 403, message: "Start Sign in with ChatGPT from this app's page." },
  siwc_state_invalid: {
    status: 400,
    message: "This sign-in link is not valid here (it was already used, has expired or belongs to another browser). Start the sign-in again.",
  },
  siwc_access_denied: { status: 303, message: "ChatGPT did not allow the sign-in. Plan usage isn't enabled for this app." },
  siwc_registration_incomplete: { status: 303, message: "ChatGPT did not finish registering this app. Start the sign-in again." },
  siwc_client_mismatch: {
    status: 303,
    message: "ChatGPT answered for another registration of this app. Nothing was changed; start the sign-in again.",
  },
  account_mismatch: {
    status: 303,
    message: "You signed in with a different ChatGPT account than the one this app is registered for. Nothing was changed.",
  },
  invalid_id_token: { status: 303, message: "ChatGPT's answer could not be verified. Start the sign-in again." },
  identity_verification_unavailable: {
    status: 303,
    message: "ChatGPT's sign-in service could not be reached to verify the sign-in. Try again shortly.",
  },
  siwc_exchange_failed: { status: 303, message: "ChatGPT did not complete the sign-in. Start it again." },
  plan_usage_not_granted: {
    status: 403,
    message:
      "You signed in with ChatGPT without allowing plan usage, so this app cannot send requests on your ChatGPT plan. " +
      "Enable plan usage (Continue with ChatGPT again and allow it) to chat.",
  },
  not_available_with_siwc: { status: 403 },
  unsupported_field: { status: 400, upstream: true },
  plan_usage_limit_reached: { status: 429, upstream: true },
  plan_not_eligible: { status: 403, upstream: true },
  plan_usage_unavailable: { status: 503, upstream: true },
  plan_route_not_supported: { status: 403, upstream: true },
  plan_authorization_invalid: { status: 401, alsoStatus: [403], upstream: true },
  plan_access_restricted: { status: 403, upstream: true },
  invalid_history_request: { status: 400 },
  history_request_too_large: { status: 413 },
  history_disabled: { status: 403 },
  history_not_found: { status: 404 },
  history_quota_exceeded: { status: 409 },
  history_unavailable: { status: 503 },
  share_not_found: { status: 404 },
  share_too_large: { status: 413 },
  store_unavailable: { status: 503, message: "The session store is unavailable. Try again shortly." },
  internal_error: { status: 500 },
} as const satisfies Record<ApiErrorCode, ApiErrorEntry>;

const KNOWN: ReadonlySet<string> = new Set(API_ERROR_CODES);

/** `value` when it is one of the API's error codes, else undefined. */
export function apiErrorCode(value: unknown): ApiErrorCode | undefined {
  return typeof value === "string" && KNOWN.has(value) ? (value as ApiErrorCode) : undefined;
}
