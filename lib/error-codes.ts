/**
 * Every `error` code the API answers with (`{error: code, …}`, see docs/api.md#errors), shared by
 * the server's replies and the browser's handling of them. A reply can only carry a code from this
 * list (the server's reply helpers take an `ApiErrorCode`), the browser's `case "…"` labels are
 * checked against it, and `lib/error-codes.test.ts` fails when docs/api.md's table disagrees.
 * Adding a code: add it here, then document it in that table.
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

const KNOWN: ReadonlySet<string> = new Set(API_ERROR_CODES);

/** `value` when it is one of the API's error codes, else undefined. */
export function apiErrorCode(value: unknown): ApiErrorCode | undefined {
  return typeof value === "string" && KNOWN.has(value) ? (value as ApiErrorCode) : undefined;
}
