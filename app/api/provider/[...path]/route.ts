import { providerHandler } from "@/lib/provider-app";

// Node runtime (the store and future realtime routes need it); never prerendered or cached.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";
// Vercel: a long reasoning reply can stream for minutes. 300 s is the most every plan allows
// (Hobby's ceiling); the proxy ends its stream cleanly just before it (LWC_MAX_STREAM_SECONDS).
export const maxDuration = 300;

// Every method goes to the handler, so a wrong method gets its 405 with an Allow header
// (Next's own 405 for an unexported method has none).
export const GET = providerHandler.handler;
export const HEAD = providerHandler.handler;
export const POST = providerHandler.handler;
export const PUT = providerHandler.handler;
export const PATCH = providerHandler.handler;
export const DELETE = providerHandler.handler;
export const OPTIONS = providerHandler.handler;
