import type { ModelDetails } from "@/lib/upstream/models";
import { DEFAULT_REASONING_EFFORT, isReasoningEffort, REASONING_EFFORTS, type ReasoningEffort } from "./chat-request-options";

/** The reasoning efforts to offer for a model: what it lists, or every effort when it lists none. */
export function effortsFor(model: ModelDetails | undefined): ReasoningEffort[] {
  const listed = (model?.reasoningEfforts ?? []).filter(isReasoningEffort);
  return listed.length > 0 ? listed : [...REASONING_EFFORTS];
}

/** The preferred effort when the model accepts it, else the model's default, else medium, else its first. */
export function clampEffort(preferred: ReasoningEffort, model: ModelDetails | undefined): ReasoningEffort {
  const offered = effortsFor(model);
  if (offered.includes(preferred)) return preferred;
  const fallback = model?.defaultReasoningEffort;
  if (isReasoningEffort(fallback) && offered.includes(fallback)) return fallback;
  return offered.includes(DEFAULT_REASONING_EFFORT) ? DEFAULT_REASONING_EFFORT : offered[0]!;
}

/**
 * Fast asks for the priority tier; a model without it would refuse, and the proxy would call
 * upstream a second time without it. So Fast is offered only where the model lists that tier.
 */
export function offersFast(model: ModelDetails | undefined): boolean {
  return Boolean(model?.serviceTiers.some((tier) => tier === "priority" || tier === "fast"));
}

export function acceptsImages(model: ModelDetails | undefined): boolean {
  return Boolean(model?.inputModalities.includes("image"));
}
