import "server-only";
import { APP_BASE_PATH } from "@/lib/shared/base-path";
import { NO_STORE } from "../http/json";
import type { SiwcErrorCode } from "./flow-error";

/** A redirect with no body; `setCookie` values are appended. */
export function redirect(status: 302 | 303, location: string, ...setCookie: string[]): Response {
  const headers = new Headers({ location, "cache-control": NO_STORE });
  for (const cookie of setCookie) headers.append("set-cookie", cookie);
  return new Response(null, { status, headers });
}

/** 303 to the app's page (`/` below LWC_BASE_PATH), with `?signin_error=<code>` for a failure. Never a token in it. */
export function pageRedirect(error?: SiwcErrorCode, ...setCookie: string[]): Response {
  const page = `${APP_BASE_PATH}/`;
  return redirect(303, error ? `${page}?signin_error=${error}` : page, ...setCookie);
}
