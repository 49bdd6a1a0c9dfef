import "server-only";
import { effortForModel } from "@/lib/upstream/efforts";
import type { ModelInfo } from "@/lib/upstream/types";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The normalised /responses body with `reasoning.effort: "minimal"` replaced by the model's lowest
 * effort when its catalogue entry does not list `minimal` (the newest models refuse it). The
 * catalogue is only loaded for a `minimal` request; when it cannot be had, the body goes as asked
 * and the backend decides.
 */
export async function withEffortForModel<T extends Record<string, unknown> & { model: string }>(
  body: T,
  loadModels: () => Promise<ModelInfo[]>,
): Promise<T> {
  const reasoning = body.reasoning;
  if (!isRecord(reasoning) || reasoning.effort !== "minimal") return body;
  let models: ModelInfo[];
  try {
    models = await loadModels();
  } catch {
    return body;
  }
  const levels = models.find((model) => model.slug === body.model)?.supported_reasoning_levels ?? [];
  const supported = levels.map((level) => level?.effort).filter((effort): effort is string => typeof effort === "string");
  const effort = effortForModel("minimal", supported);
  return effort === "minimal" ? body : { ...body, reasoning: { ...reasoning, effort } };
}
