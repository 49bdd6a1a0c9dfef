import { uncachedFetch } from "../../../lib/upstream/uncached-fetch";

/**
 * The framework's floor: a bare Next.js route that forwards a POST to the mock provider's
 * /responses and pipes the reply back. No session, no checks, no logging: `npm run bench:floor`
 * times it beside the product's POST /api/provider/responses, so whatever the proxy costs above it
 * is the proxy's own work. It lives in this benchmark-only app, never in the product.
 *
 * It forwards only to a loopback LWC_CODEX_BASE_URL (the mock): it holds no credentials (the caller
 * sends the mock's token itself) and cannot reach the real provider.
 */
export const FLOOR_PATH = "/api/bench-floor";

/**
 * Request headers the mock's /responses needs (`version`: it gates models on it, as the backend
 * does); nothing else (no cookie) is passed on.
 */
const FORWARDED_HEADERS = ["authorization", "chatgpt-account-id", "version", "content-type", "accept"];

function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** The mock's /responses URL when LWC_CODEX_BASE_URL is a loopback http address, else null. */
export function floorTarget(env: Record<string, string | undefined>): string | null {
  const base = env.LWC_CODEX_BASE_URL?.trim();
  if (!base || !URL.canParse(base)) return null;
  const url = new URL(base);
  if (url.protocol !== "http:" || !isLoopbackHost(url.hostname)) return null;
  return `${base.replace(/\/+$/, "")}/responses`;
}

/** The route's handler: 503 without a loopback target, 405 for anything but POST, else the forward. */
export function createFloor(env: Record<string, string | undefined>): (request: Request) => Promise<Response> {
  const target = floorTarget(env);
  return async (request) => {
    if (target === null) return new Response("LWC_CODEX_BASE_URL is not a loopback http address", { status: 503 });
    if (request.method !== "POST") return new Response("Method Not Allowed", { status: 405, headers: { allow: "POST" } });
    const headers = new Headers();
    for (const name of FORWARDED_HEADERS) {
      const value = request.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    const upstream = await uncachedFetch(target, {
      method: "POST",
      headers,
      body: await request.arrayBuffer(),
      signal: request.signal,
      redirect: "manual",
    });
    const contentType = upstream.headers.get("content-type");
    return new Response(upstream.body, { status: upstream.status, headers: contentType ? { "content-type": contentType } : {} });
  };
}
