import { ProviderAuthError } from "./errors";
import type { UpstreamConfig } from "./types";

/** A fully read, non-streaming upstream reply. `ok` is false for a 3xx too (redirects are not followed). */
interface UpstreamReply {
  status: number;
  ok: boolean;
  headers: Headers;
  text: string;
}

export interface UpstreamCallOptions {
  signal?: AbortSignal;
}

/** True when the caller's own signal caused the failure: such errors are rethrown untouched. */
function abortedByCaller(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** A fixed sentence (routes pass it on to the browser); the address is kept for the log line only. */
function networkError(what: string, url: string, cause: unknown, timeoutMs?: number): ProviderAuthError {
  const reason = timeoutMs === undefined ? "could not be reached" : `did not answer within ${timeoutMs} ms`;
  return new ProviderAuthError("network_error", `${what} failed: the provider ${reason}.`, {
    cause,
    upstreamOrigin: new URL(url).origin,
  });
}

/**
 * Runs one non-streaming upstream call (request and body read) under `config.requestTimeoutMs`.
 * A failed fetch or a timeout becomes `network_error`; an abort by the caller's signal is
 * rethrown as is, so callers can tell "user went away" from "upstream is down".
 */
export async function fetchUpstreamText(
  config: UpstreamConfig,
  url: string,
  init: RequestInit,
  what: string,
  options: UpstreamCallOptions = {},
): Promise<UpstreamReply> {
  const timeout = AbortSignal.timeout(config.requestTimeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    // Never follow a redirect: it would resend the request (tokens, account id, prompt) elsewhere.
    // A 3xx comes back as a failed reply (ok is false) for the caller to report.
    const response = await config.fetch(url, { ...init, signal, redirect: "manual" });
    const text = await response.text();
    return { status: response.status, ok: response.ok, headers: response.headers, text };
  } catch (error) {
    if (abortedByCaller(options.signal)) throw error;
    if (timeout.aborted) throw networkError(what, url, error, config.requestTimeoutMs);
    throw networkError(what, url, error);
  }
}

/**
 * Starts a streaming upstream call and returns the Response unconsumed. No timeout: streams may
 * run long and the caller's signal ends them. A failed fetch becomes `network_error`; an abort
 * by the caller's signal is rethrown as is.
 */
export async function fetchUpstreamStream(
  config: UpstreamConfig,
  url: string,
  init: RequestInit,
  what: string,
  options: UpstreamCallOptions = {},
): Promise<Response> {
  try {
    // As above: a redirect is answered, never followed (the caller sees the 3xx as a failure).
    return await config.fetch(url, { ...init, signal: options.signal, redirect: "manual" });
  } catch (error) {
    if (abortedByCaller(options.signal)) throw error;
    throw networkError(what, url, error);
  }
}

/** Parses JSON, returning undefined for anything that is not JSON. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Enough of an error body to describe it; the rest is never read. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Reads at most `maxBytes` of a reply body as text and cancels the rest. */
export async function readBoundedText(response: Response, maxBytes = MAX_ERROR_BODY_BYTES): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      text += decoder.decode(value, { stream: true });
      if (total >= maxBytes) break;
    }
  } catch {
    // A cut error body still tells us the status.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text + decoder.decode();
}
