import { APICallError, generateText } from "ai";
import { z } from "zod";
import { providerHandler } from "@/lib/provider-app";
import { ApiError, createSessionProvider, listSessionModels, readJsonRequest } from "@/lib/server";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
// Vercel: the model call may take as long as a streamed reply (see app/api/provider/[...path]/route.ts).
export const maxDuration = 300;

const requestSchema = z.object({
  topic: z.string().trim().min(1).max(200).default("signing in with a one-time code"),
  model: z.string().trim().min(1).max(100).optional(),
});

/** `{topic, model}` needs a few hundred bytes; anything far bigger is refused before it is parsed. */
const MAX_HAIKU_REQUEST_BYTES = 16 * 1024;

/**
 * POST /api/example/haiku  {topic?, model?}  →  {model, haiku}
 * A model call made as the signed-in user: the same session cookie, the same proxy, rate limit and
 * allowed-model checks as the browser chat. `providerHandler.route` applies the handler's CSRF rule
 * first and answers what this throws (`ApiError`, a store outage) as the handler answers its own.
 */
export const POST = providerHandler.route(async (request) => {
  const session = await providerHandler.getSession(request);
  if (session.status !== "authenticated") throw new ApiError("not_authenticated");
  const { topic, model: named } = await readJsonRequest(request, requestSchema, { maxRequestBytes: MAX_HAIKU_REQUEST_BYTES });
  let model = named;
  if (model === undefined) {
    // /models is served from the handler's per-account cache under a per-session limit; its 429 is passed on.
    const listed = await listSessionModels(providerHandler, request);
    if (listed instanceof Response) return listed;
    model = listed[0];
    if (model === undefined) throw new ApiError("model_not_allowed", { message: "This account has no model to use here: name one." });
  }

  // The route checked the Origin already (route() above), so the model call skips proxyFetch's own check.
  const provider = createSessionProvider(providerHandler, request, { csrf: "skip-server-call" });
  try {
    const { text } = await generateText({
      model: provider.responses(model),
      prompt: `Write one haiku about ${topic}. Reply with the three lines only.`,
      maxRetries: 0,
      // A caller that goes away cancels the model call upstream (the proxy passes the abort on).
      abortSignal: request.signal,
      providerOptions: { openai: { store: false } },
    });
    return Response.json({ model, haiku: text });
  } catch (error) {
    // The proxy's own refusal (rate_limited, model_not_allowed, …) is passed on as it answered.
    const refused = findApiCallError(error);
    if (refused?.statusCode && refused.statusCode >= 400 && refused.responseBody) {
      return new Response(refused.responseBody, { status: refused.statusCode, headers: { "content-type": "application/json" } });
    }
    throw new ApiError("responses_request_failed", { status: 502, detail: "The model call did not finish." });
  }
});

/** The APICallError in an error or its causes, if any. */
function findApiCallError(error: unknown): APICallError | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    if (APICallError.isInstance(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
