import { connection } from "next/server";
import { providerHandler } from "@/lib/provider-app";

// No `runtime` or `dynamic` export: Node is the default runtime, and an app with `cacheComponents`
// (create-next-app's default) refuses both. Only a GET handler can be prerendered at build time;
// `connection()` keeps it per request either way.
async function getPerRequest(request: Request): Promise<Response> {
  await connection();
  return providerHandler.handler(request);
}

// Vercel: a long reasoning reply can stream for minutes. 300 s is the most every plan allows
// (Hobby's ceiling); the proxy ends its stream cleanly just before it (LWC_MAX_STREAM_SECONDS).
export const maxDuration = 300;

// Every method goes to the handler, so a wrong method gets its 405 with an Allow header
// (Next's own 405 for an unexported method has none).
export const GET = getPerRequest;
export const HEAD = providerHandler.handler;
export const POST = providerHandler.handler;
export const PUT = providerHandler.handler;
export const PATCH = providerHandler.handler;
export const DELETE = providerHandler.handler;
export const OPTIONS = providerHandler.handler;
