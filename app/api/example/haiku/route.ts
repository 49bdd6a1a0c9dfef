import { APICallError, generateText } from "ai";
import { z } from "zod";
import { providerHandler } from "@/lib/provider-app";
import { readBodyWithLimit } from "@/lib/server/http/body-limit";
import { checkOrigin } from "@/lib/server/http/csrf";
import { describeErrorForLog, LOG_PREFIX } from "@/lib/logger";
import { createSessionProvider, listSessionModels } from "@/lib/server/session-provider";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
// Vercel: the model call may take as long as a streamed reply (see app/api/provider/[...path]/route.ts).
export const maxDuration = 300;

const requestSchema = z.object({
  topic: z.string().trim().min(1).max(200).default("signing in with a one-time code"),
  model: z.string().trim().min(1).max(100).optional(),
});

/** `{topic, model}` needs a few hundred bytes; anything far bigger is refused before it is parsed. */
export const MAX_HAIKU_REQUEST_BYTES = 16 * 1024;

/** This route serves the app's own pages only: no extra origins (and it sends no CORS headers). */
const NO_CROSS_ORIGINS: ReadonlySet<string> = new Set();

function json(body: unknown, status = 200): Response {
  return Response.json(body, { status, headers: { "cache-control": "no-store" } });
}

/**
 * POST /api/example/haiku  {topic?, model?}  →  {model, haiku}
 * A server-side model call made as the signed-in user: the same session cookie, the same proxy,
 * rate limit and allowed-model checks as the browser chat.
 */
export async function POST(request: Request): Promise<Response> {
  // CSRF first, by the handler's rule: no Origin or the request's own origin (from Host /
  // X-Forwarded-Host / X-Forwarded-Proto, not request.url, which Next rewrites) passes; anything
  // else, "null" included, is refused before the session is even read.
  const verdict = checkOrigin(request, NO_CROSS_ORIGINS);
  if (verdict.kind === "rejected") return json({ error: "origin_not_allowed", origin: verdict.origin }, 403);

  try {
    return await writeHaiku(request);
  } catch (error) {
    // As the handler does: a store outage is a 503 the caller can retry; anything else a bare 500.
    if (isStoreUnavailable(error)) {
      console.warn(`${LOG_PREFIX} session store unavailable on POST /api/example/haiku`);
      return json({ error: "store_unavailable", message: "The session store is unavailable. Try again shortly." }, 503);
    }
    console.error(`${LOG_PREFIX} internal error on POST /api/example/haiku: ${describeErrorForLog(error)}`);
    return json({ error: "internal_error" }, 500);
  }
}

async function writeHaiku(request: Request): Promise<Response> {
  const session = await providerHandler.getSession(request);
  if (session.status !== "authenticated") return json({ error: "not_authenticated" }, 401);

  // The same bounded reader as /responses: counted while read, cut off (413) past the limit.
  const read = await readBodyWithLimit(request, MAX_HAIKU_REQUEST_BYTES);
  if (!read.ok && read.reason === "too_large") {
    return json({ error: "request_too_large", maxRequestBytes: MAX_HAIKU_REQUEST_BYTES }, 413);
  }
  let input: unknown = {};
  try {
    if (read.ok && read.bytes.byteLength > 0) input = JSON.parse(new TextDecoder().decode(read.bytes));
  } catch {
    return json({ error: "invalid_request", message: "The request body must be JSON." }, 400);
  }
  const parsed = requestSchema.safeParse(input);
  if (!parsed.success) return json({ error: "invalid_request", message: parsed.error.issues[0]?.message }, 400);
  let model = parsed.data.model;
  if (model === undefined) {
    // /models is served from the handler's per-account cache under a per-session limit; its 429 is passed on.
    const listed = await listSessionModels(providerHandler, request);
    if (listed instanceof Response) return listed;
    model = listed[0];
  }
  if (!model) return json({ error: "no_model_available" }, 409);

  // One JSON reply (the proxy assembles it from the backend's stream). The Origin was checked above,
  // by the contract's rule (none passes), so the model call skips proxyFetch's own check explicitly.
  const provider = createSessionProvider(providerHandler, request, { csrf: "skip-server-call" });
  try {
    const { text } = await generateText({
      model: provider.responses(model),
      prompt: `Write one haiku about ${parsed.data.topic}. Reply with the three lines only.`,
      maxRetries: 0,
      // A caller that goes away cancels the model call upstream (the proxy passes the abort on).
      abortSignal: request.signal,
      providerOptions: { openai: { store: false } },
    });
    return json({ model, haiku: text });
  } catch (error) {
    // The proxy's own error answer (rate_limited, model_not_allowed, store_unavailable, ...) is passed on.
    const failed = findApiCallError(error);
    if (failed?.statusCode && failed.statusCode >= 400 && failed.responseBody) {
      return new Response(failed.responseBody, {
        status: failed.statusCode,
        headers: { "content-type": "application/json", "cache-control": "no-store" },
      });
    }
    return json({ error: "example_failed", message: "The model call did not finish." }, 502);
  }
}

function isStoreUnavailable(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === "store_unavailable";
}

/** The APICallError in an error or its causes, if any. */
function findApiCallError(error: unknown): APICallError | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    if (APICallError.isInstance(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
