/*
 * The page's side of Sign in with ChatGPT (SIWC, docs/siwc.md): where the sign-in starts, the
 * ChatGPT pages the page links to, and the words for a sign-in that came back with an error.
 */

import { apiErrorCode, type ApiErrorCode } from "@/lib/error-codes";

/** ChatGPT's page where a person sees and limits what apps use of their plan. */
export const MANAGE_USAGE_URL = "https://chatgpt.com/settings/usage";
/** ChatGPT's settings, where a person can disconnect a connected app. */
export const CHATGPT_SETTINGS_URL = "https://chatgpt.com/settings";
/** Where a hosted or paid app applies to OpenAI for SIWC. */
export const SIWC_INTEREST_FORM_URL = "https://openai.com/form/sign-in-with-chatgpt-interest/";

/**
 * `{basePath}/siwc/start`: the page navigates there (a full navigation, never fetch), and the
 * server sends the browser on to ChatGPT. `consent` asks again for plan usage; `newRegistration`
 * registers the app afresh (for another ChatGPT account).
 */
export function siwcStartUrl(basePath: string, options: { consent?: boolean; newRegistration?: boolean } = {}): string {
  const query = [options.consent ? "consent=1" : "", options.newRegistration ? "new=1" : ""].filter(Boolean).join("&");
  return `${basePath}/siwc/start${query ? `?${query}` : ""}`;
}

/** The query parameter the callback adds when a sign-in failed. */
const SIGN_IN_ERROR_PARAM = "signin_error";
/** What a code can look like; anything else in the URL is not shown. */
const CODE_SHAPE = /^[a-z0-9_]{1,64}$/;

/**
 * The `?signin_error=<code>` the callback sent the page back with, removed from the address bar
 * (a reload or a shared link does not show it again). Null when there is none.
 */
export function takeSignInError(location: Pick<Location, "href">, history: Pick<History, "replaceState">): string | null {
  const url = new URL(location.href);
  if (!url.searchParams.has(SIGN_IN_ERROR_PARAM)) return null;
  const code = url.searchParams.get(SIGN_IN_ERROR_PARAM) ?? "";
  url.searchParams.delete(SIGN_IN_ERROR_PARAM);
  // `null` state, as Next.js asks: its router keeps its own state and follows the new URL.
  history.replaceState(null, "", `${url.pathname}${url.search}${url.hash}`);
  return CODE_SHAPE.test(code) ? code : "unknown_error";
}

const SIGN_IN_ERRORS: Partial<Record<ApiErrorCode, string>> = {
  siwc_disabled: "Continue with ChatGPT is turned off on this server.",
  siwc_requires_loopback:
    "Continue with ChatGPT works only when this app runs on your own computer and is open at 127.0.0.1.",
  siwc_state_invalid: "That sign-in had already been used or had run out. Start again with Continue with ChatGPT.",
  siwc_access_denied: "You declined on ChatGPT's page, so you're not signed in. You can continue with ChatGPT again whenever you like.",
  siwc_registration_incomplete: "ChatGPT didn't finish registering this app for your account. Try Continue with ChatGPT again.",
  siwc_client_mismatch:
    "ChatGPT answered for another registration of this app than the one saved here, so the sign-in was refused. Try again.",
  account_mismatch:
    "You signed in with another ChatGPT account than the one this app is registered for. Sign in with that account, or register the app for the new one.",
  invalid_id_token: "ChatGPT's answer could not be verified, so the sign-in was refused. Try again.",
  identity_verification_unavailable: "ChatGPT's sign-in keys could not be reached to check the sign-in. Try again in a moment.",
  siwc_exchange_failed: "ChatGPT approved the sign-in, but finishing it failed. Try again.",
  origin_not_allowed: "The server refused a request from this page's address (origin not allowed).",
  store_unavailable: "The session store is unavailable right now. Try again in a moment.",
  network_error: "The server could not reach ChatGPT. Try again in a moment.",
};

/** A failed Continue with ChatGPT, in words. */
export function describeSignInError(code: string): string {
  const known = apiErrorCode(code);
  return (known && SIGN_IN_ERRORS[known]) ?? `Signing in with ChatGPT didn't work (${code}). Try again.`;
}
