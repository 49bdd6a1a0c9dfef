import { APICallError, streamText } from "ai";
import { z } from "zod";
import { providerHandler } from "@/lib/provider-app";
import { createSessionProvider, listSessionModels } from "../session-provider";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const requestSchema = z.object({
  topic: z.string().trim().min(1).max(200).default("signing in with a one-time code"),
  model: z.string().trim().min(1).max(100).optional(),
});

/**
 * POST /api/example/haiku  {topic?, model?}  →  {model, haiku}
 * A server-side model call made as the signed-in user: the same session cookie, the same proxy,
 * rate limit and allowed-model checks as the browser chat.
 */
export async function POST(request: Request): Promise<Response> {
  const session = await providerHandler.getSession(request);
  if (session.status !== "authenticated") {
    return Response.json({ error: "not_authenticated" }, { status: 401, headers: { "cache-control": "no-store" } });
  }

  const parsed = requestSchema.safeParse(await request.json().catch(() => ({})));
  if (!parsed.success) {
    return Response.json({ error: "invalid_request", message: parsed.error.issues[0]?.message }, { status: 400 });
  }
  const model = parsed.data.model ?? (await listSessionModels(request))[0];
  if (!model) return Response.json({ error: "no_model_available" }, { status: 409 });

  // The backend only streams, so even a one-shot answer uses streamText and waits for the full text.
  let streamError: unknown;
  const result = streamText({
    model: createSessionProvider(request).responses(model),
    prompt: `Write one haiku about ${parsed.data.topic}. Reply with the three lines only.`,
    maxRetries: 0,
    providerOptions: { openai: { store: false } },
    // `text` then rejects with NoOutputGeneratedError; the HTTP failure itself arrives here.
    onError: ({ error }) => {
      streamError = error;
    },
  });

  try {
    const haiku = await result.text;
    return Response.json({ model, haiku }, { headers: { "cache-control": "no-store" } });
  } catch (error) {
    // The proxy's own error answer (rate_limited, model_not_allowed, responses_request_failed, ...) is passed on.
    const failed = findApiCallError(streamError) ?? findApiCallError(error);
    if (failed?.statusCode && failed.statusCode >= 400 && failed.responseBody) {
      return new Response(failed.responseBody, {
        status: failed.statusCode,
        headers: { "content-type": "application/json", "cache-control": "no-store" },
      });
    }
    return Response.json({ error: "example_failed", message: "The model call did not finish." }, { status: 502 });
  }
}

/** The APICallError in an error or its causes, if any. */
function findApiCallError(error: unknown): APICallError | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    if (APICallError.isInstance(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
