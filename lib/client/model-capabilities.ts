import { effortForModel } from "@/lib/upstream/efforts";
import type { ModelDetails } from "@/lib/upstream/models";
import { DEFAULT_REASONING_EFFORT, isReasoningEffort, REASONING_EFFORTS, type ReasoningEffort } from "./chat-request-options";

/** The preferred model when it can be used, else the first one that can (a model gated above the server's version cannot). */
export function firstUsableModel(models: readonly ModelDetails[], preferred: string | null): ModelDetails | undefined {
  const usable = models.filter((model) => !model.unavailable);
  return usable.find((model) => model.slug === preferred) ?? usable[0];
}

/** The reasoning efforts to offer for a model: what it lists, or every effort when it lists none. */
export function effortsFor(model: ModelDetails | undefined): ReasoningEffort[] {
  const listed = (model?.reasoningEfforts ?? []).filter(isReasoningEffort);
  return listed.length > 0 ? listed : [...REASONING_EFFORTS];
}

/**
 * The preferred effort when the model accepts it; `minimal` where the model does not take it is its
 * lowest effort (as the server sends it); else the model's default, else medium, else its first.
 */
export function clampEffort(preferred: ReasoningEffort, model: ModelDetails | undefined): ReasoningEffort {
  const offered = effortsFor(model);
  if (offered.includes(preferred)) return preferred;
  const lowest = effortForModel(preferred, offered);
  if (lowest !== preferred && isReasoningEffort(lowest)) return lowest;
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
