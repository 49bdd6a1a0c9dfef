import "server-only";
import type { ApiErrorCode } from "@/lib/error-codes";

/**
 * The sign-in failures of Sign in with ChatGPT: each code (lib/error-codes.ts, docs/api.md) with
 * the sentence the reply carries. The callback's failures reach the page as `?signin_error=<code>`.
 */
export const SIWC_ERROR_MESSAGES = {
  "siwc_disabled": "Sign in with ChatGPT is turned off on this server.",
  "siwc_requires_loopback":
    "Sign in with ChatGPT with plan usage works only when this app runs on your own machine and is opened at http://127.0.0.1 or http://localhost.",
  "siwc_navigation_required": "Start Sign in with ChatGPT from this app's page.",
  "siwc_state_invalid": "This sign-in link is not valid here (it was already used, has expired or belongs to another browser). Start the sign-in again.",
  "siwc_access_denied": "ChatGPT did not allow the sign-in. Plan usage isn't enabled for this app.",
  "siwc_registration_incomplete": "ChatGPT did not finish registering this app. Start the sign-in again.",
  "siwc_client_mismatch": "ChatGPT answered for another registration of this app. Nothing was changed; start the sign-in again.",
  "account_mismatch": "You signed in with a different ChatGPT account than the one this app is registered for. Nothing was changed.",
  "invalid_id_token": "ChatGPT's answer could not be verified. Start the sign-in again.",
  "identity_verification_unavailable": "ChatGPT's sign-in service could not be reached to verify the sign-in. Try again shortly.",
  "siwc_exchange_failed": "ChatGPT did not complete the sign-in. Start it again.",
} as const satisfies Partial<Record<ApiErrorCode, string>>;

export type SiwcErrorCode = keyof typeof SIWC_ERROR_MESSAGES;
