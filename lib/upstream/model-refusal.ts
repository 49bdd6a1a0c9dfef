import "server-only";
import { parseJsonOrUndefined } from "./http";

/**
 * The backend's two refusals of a model, by its exact words (docs/upstream.md):
 * - `client_version_outdated`: 400 "The '<model>' model requires a newer version of Codex. …"
 *   (the model's `minimal_client_version` is above the `version` header we sent);
 * - `model_not_supported`: 400 "The '<model>' model is not supported when using Codex with a
 *   ChatGPT account." (retired, or not for this plan).
 */
type ModelRefusalCode = "client_version_outdated" | "model_not_supported";

export interface ModelRefusal {
  code: ModelRefusalCode;
  /** The model the backend named (a slug: letters, digits and `.`, `_`, `:`, `-` only). */
  model: string;
}

const REFUSALS: readonly [ModelRefusalCode, RegExp][] = [
  ["client_version_outdated", /^The '([\w.:-]{1,100})' model requires a newer version of Codex\b/],
  ["model_not_supported", /^The '([\w.:-]{1,100})' model is not supported when using Codex with a ChatGPT account\b/],
];

/** The refusal a failed reply carries in `detail` or `error.message`, if it is one of the two. */
export function classifyModelRefusal(status: number, bodyText: string): ModelRefusal | undefined {
  if (status !== 400) return undefined;
  const root = parseJsonOrUndefined(bodyText) as { detail?: unknown; error?: { message?: unknown } } | undefined;
  const texts = [root?.detail, root?.error?.message].filter((text): text is string => typeof text === "string");
  for (const text of texts) {
    for (const [code, pattern] of REFUSALS) {
      const model = pattern.exec(text.trim())?.[1];
      if (model) return { code, model };
    }
  }
  return undefined;
}
