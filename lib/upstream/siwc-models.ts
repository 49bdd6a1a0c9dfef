import "server-only";
import { z } from "zod";
import { ProviderAuthError } from "./errors";
import { fetchUpstreamText, parseJsonOrUndefined, type UpstreamCallOptions } from "./http";
import { classifySiwcHttpFailure, SiwcRefusal } from "./siwc-errors";
import type { ModelInfo, UpstreamConfig } from "./types";

const siwcModelsReplySchema = z.object({
  models: z.array(
    z.looseObject({
      slug: z.string().min(1),
      display_name: z.string().optional(),
      visibility: z.string().optional(),
      supported_in_api: z.unknown().optional(),
    }),
  ),
});

/**
 * The models a SIWC catalogue reply (`{models: [...]}`, spec siwc.md §6) offers, in the server's
 * order: `visibility: "list"` only, and not those marked `supported_in_api: false` (an entry
 * without that field is kept). Undefined when the reply is not that shape.
 */
export function parseSiwcModels(text: string): ModelInfo[] | undefined {
  const parsed = siwcModelsReplySchema.safeParse(parseJsonOrUndefined(text));
  if (!parsed.success) return undefined;
  return parsed.data.models
    .filter((model) => model.visibility === "list" && model.supported_in_api !== false)
    .map((model) => ({ ...model, display_name: model.display_name ?? model.slug }) as ModelInfo);
}

/**
 * GET `{apiBase}/models` with the bearer token only. Throws a SiwcRefusal (our code and sentence)
 * when the backend refuses, `models_request_failed` for a malformed reply, or `network_error`.
 */
export async function fetchSiwcModels(
  config: UpstreamConfig,
  apiBase: string,
  accessToken: string,
  options: UpstreamCallOptions = {},
): Promise<ModelInfo[]> {
  const reply = await fetchUpstreamText(
    config,
    `${apiBase}/models`,
    { method: "GET", headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" } },
    "Models request",
    options,
  );
  if (!reply.ok) {
    // A redirect is not followed: it is a failure like any other (reported as 502).
    const status = reply.status >= 400 ? reply.status : 502;
    throw new SiwcRefusal(classifySiwcHttpFailure(status, reply.text, reply.headers, { route: "models" }), reply.text);
  }
  const models = parseSiwcModels(reply.text);
  if (!models) throw new ProviderAuthError("models_request_failed", "The models reply was malformed", { status: reply.status, body: reply.text });
  return models;
}
