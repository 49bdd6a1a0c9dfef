import "server-only";
import { createOpenAI, type OpenAIProvider } from "@ai-sdk/openai";
import { StoreUnavailableError } from "@/lib/stores/types";
import type { ProviderHandler, ProxyFetchOptions } from "./handler";

/** Headers of the incoming request that identify the login session and let the CSRF check judge the call. */
const FORWARDED_HEADERS = ["cookie", "origin", "host", "x-forwarded-host", "x-forwarded-proto"];

/** The handler, or just the parts of it these helpers use. */
type SessionHandler = Pick<ProviderHandler, "basePath" | "handler" | "proxyFetch">;

/** A URL the handler accepts; the host is never contacted, because requests go to the handler in-process. */
function internalUrl(handler: SessionHandler, path: string): string {
  return `http://internal${handler.basePath}${path}`;
}

function forwardedHeaders(incoming: Request, extra?: HeadersInit): Headers {
  const headers = new Headers(extra);
  headers.delete("authorization"); // the OpenAI provider's dummy key; the handler injects the real credentials
  for (const name of FORWARDED_HEADERS) {
    const value = incoming.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  return headers;
}

/**
 * An AI SDK provider for server code (route handlers, server actions) that calls the model as the
 * signed-in user of `incoming`: every model request runs through `handler.proxyFetch` in this
 * process with the caller's session cookie, so no token ever leaves the handler. `streamText`,
 * `generateText` and `generateObject` all work (a one-shot call gets one JSON reply).
 *
 * CSRF: the browser's `Origin` is forwarded and checked as on `/responses`; a request without one
 * (a GET, curl) is refused with 403 `origin_required` unless `csrf: "skip-server-call"` says the
 * call needs no check (you checked the browser's request yourself, or no browser request started it).
 */
export function createSessionProvider(
  handler: SessionHandler,
  incoming: Request,
  options: ProxyFetchOptions = {},
): OpenAIProvider {
  return createOpenAI({
    baseURL: internalUrl(handler, ""),
    apiKey: "unused",
    fetch: (url, init) =>
      handler.proxyFetch(new Request(url, { ...init, headers: forwardedHeaders(incoming, init?.headers) }), options),
  });
}

/**
 * The caller's model slugs, through the same handler (GET {basePath}/models). Empty when the list
 * cannot be had (the list comes from the handler's per-account cache); the handler's 429 (its
 * per-session limit of /models) is returned as is for the caller to pass on; a store outage (the
 * handler's 503 `store_unavailable`) throws StoreUnavailableError instead, so the caller can
 * answer 503 rather than "no model".
 */
export async function listSessionModels(handler: SessionHandler, incoming: Request): Promise<string[] | Response> {
  const response = await handler.handler(new Request(internalUrl(handler, "/models"), { headers: forwardedHeaders(incoming) }));
  if (response.status === 429) return response;
  if (response.status === 503) {
    const failure = (await response.json().catch(() => null)) as { error?: unknown } | null;
    if (failure?.error === "store_unavailable") throw new StoreUnavailableError("session store unavailable on GET /models");
  }
  if (!response.ok) return [];
  const body = (await response.json().catch(() => null)) as { models?: unknown } | null;
  return Array.isArray(body?.models) ? body.models.filter((model): model is string => typeof model === "string") : [];
}
