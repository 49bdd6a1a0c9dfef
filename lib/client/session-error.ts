import { apiErrorCode, type ApiErrorCode } from "@/lib/error-codes";
import { isProviderProxyError } from "./provider-proxy-error";

/** A sign-in problem in words, with the service's code kept for tests and logs. */
export interface ProviderSessionError {
  code: string;
  message: string;
  retryAfterSeconds?: number;
}

const MESSAGES: Partial<Record<ApiErrorCode, string>> = {
  device_code_disabled:
    "Sign-in with a device code is turned off for this account. Enable device code login in your ChatGPT security settings, then try again.",
  device_login_disabled: "Sign-in with a one-time code is turned off on this server. Use Continue with ChatGPT.",
  device_code_request_failed: "ChatGPT did not hand out a sign-in code just now. Try again in a moment.",
  authorization_denied: "The sign-in request was declined on the ChatGPT page.",
  authorization_expired: "The sign-in code expired before it was approved.",
  token_exchange_failed: "ChatGPT approved the code, but finishing the sign-in failed. Try again.",
  token_refresh_failed: "Your sign-in could not be renewed just now. Try again in a moment.",
  refresh_token_invalid: "Your sign-in is no longer valid. Sign in again.",
  invalid_token: "ChatGPT returned an account this app cannot use.",
  network_error: "The server could not reach ChatGPT. Try again in a moment.",
  origin_not_allowed: "The server refused a request from this page's address (origin not allowed).",
  store_unavailable: "The session store is unavailable right now. Try again in a moment.",
};

/** Words for a session-level error code (from a failed call or an `error` session state). */
export function describeSessionErrorCode(code: string, serverMessage?: string): ProviderSessionError {
  const known = apiErrorCode(code);
  return { code, message: (known && MESSAGES[known]) ?? serverMessage ?? `Signing in failed (${code}). Try again.` };
}

/** Words for whatever a session call threw. */
export function describeSessionError(error: unknown): ProviderSessionError {
  if (isProviderProxyError(error)) {
    if (error.status === 429) {
      const seconds = error.retryAfterSeconds ?? 60;
      return {
        code: error.code === `http_429` ? "rate_limited" : error.code,
        retryAfterSeconds: seconds,
        message: `Too many sign-in attempts — try again in ${seconds} ${seconds === 1 ? "second" : "seconds"}.`,
      };
    }
    const known = apiErrorCode(error.code);
    return describeSessionErrorCode(error.code, error.status >= 500 && !(known && MESSAGES[known]) ? `The server had a problem (status ${error.status}). Try again.` : error.message);
  }
  return { code: "network_error", message: "Couldn't reach the server. Check your connection and try again." };
}
