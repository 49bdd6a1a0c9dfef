import "server-only";
import { apiErrorCode, type ApiErrorCode } from "@/lib/error-codes";

/** Every reply of the handler carries this: session state and model output must never be cached. */
export const NO_STORE = "no-store";

export function jsonResponse(body: unknown, init: { status?: number; headers?: HeadersInit } = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json; charset=utf-8");
  headers.set("cache-control", NO_STORE);
  return new Response(JSON.stringify(body), { status: init.status ?? 200, headers });
}

/** The plain-text replies of the contract, docs/api.md (unknown path 404, wrong method 405). */
export function textResponse(text: string, status: number, headers?: HeadersInit): Response {
  const merged = new Headers(headers);
  merged.set("content-type", "text/plain; charset=utf-8");
  merged.set("cache-control", NO_STORE);
  return new Response(text, { status, headers: merged });
}

/**
 * The reply code for a provider failure a route passes on (`device_code_disabled`, `network_error`,
 * `models_request_failed`, ...). The upstream layer has codes of its own that never reach a reply
 * (`authorization_pending`, the token-export ones); one that did would be a bug: `internal_error`.
 */
export function passedOnCode(providerCode: string): ApiErrorCode {
  return apiErrorCode(providerCode) ?? "internal_error";
}

/**
 * Sets `cache-control: no-store` on any reply. Headers of a Response built from a fetch() reply
 * are immutable, so such a reply is re-wrapped (the body stream is passed through, not read).
 */
export function ensureNoStore(response: Response): Response {
  try {
    response.headers.set("cache-control", NO_STORE);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    headers.set("cache-control", NO_STORE);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}
