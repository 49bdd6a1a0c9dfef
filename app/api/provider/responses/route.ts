import { connection } from "next/server";
import { providerHandler } from "@/lib/provider-app";

// POST /responses, the streaming hot path, has a static route of its own: Next matches a static
// path directly, while every request through the catch-all [...path] route pays for building and
// matching its dynamic pattern (about 8% of the server CPU of a streamed reply). Same handler, same
// answers: the handler routes by the URL either way. As there, no `runtime` or `dynamic` export
// (`cacheComponents` refuses both), and GET waits for `connection()` so it is never prerendered.
async function getPerRequest(request: Request): Promise<Response> {
  await connection();
  return providerHandler.handler(request);
}

// Vercel: a long reasoning reply can stream for minutes (see ../[...path]/route.ts).
export const maxDuration = 300;

export const GET = getPerRequest;
export const HEAD = providerHandler.handler;
export const POST = providerHandler.handler;
export const PUT = providerHandler.handler;
export const PATCH = providerHandler.handler;
export const DELETE = providerHandler.handler;
export const OPTIONS = providerHandler.handler;
