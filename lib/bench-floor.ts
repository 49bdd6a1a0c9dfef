import "server-only";
import { uncachedFetch } from "@/lib/upstream/uncached-fetch";

/**
 * The framework's floor for `npm run bench` (app/api/bench-floor/route.ts): a bare Next.js route
 * that forwards a POST to the mock provider's /responses and pipes the reply back. No session, no
 * checks, no logging: the bench times it beside POST /api/provider/responses in the same build and
 * run, so whatever the proxy costs above it is the proxy's own work.
 *
 * It answers 404 to everything unless the server started with LWC_BENCH_FLOOR=1, and even then
 * unless LWC_CODEX_BASE_URL names a loopback address (the mock): it holds no credentials (the
 * caller sends the mock's token itself) and cannot forward anything to the real provider.
 */
export const BENCH_FLOOR_PATH = "/api/bench-floor";

/**
 * Request headers the mock's /responses needs (`version`: it gates models on it, as the backend
 * does); nothing else (no cookie) is passed on.
 */
const FORWARDED_HEADERS = ["authorization", "chatgpt-account-id", "version", "content-type", "accept"];

function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** The mock's /responses URL when the floor is switched on and may forward there, else null. */
export function benchFloorTarget(env: Record<string, string | undefined>): string | null {
  if (env.LWC_BENCH_FLOOR?.trim() !== "1") return null;
  const base = env.LWC_CODEX_BASE_URL?.trim();
  if (!base || !URL.canParse(base)) return null;
  const url = new URL(base);
  if (url.protocol !== "http:" || !isLoopbackHost(url.hostname)) return null;
  return `${base.replace(/\/+$/, "")}/responses`;
}

const notFound = () => new Response("Not Found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });

/** The route's handler for every method: 404 while off, 405 for anything but POST while on. */
export function createBenchFloor(env: Record<string, string | undefined>): (request: Request) => Promise<Response> {
  const target = benchFloorTarget(env);
  return async (request) => {
    if (target === null) return notFound();
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
