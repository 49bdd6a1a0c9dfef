import "server-only";
import { fitsResponsesLite } from "@/lib/upstream/responses";
import type { ModelInfo } from "@/lib/upstream/types";

/**
 * How long this instance sends a model the plain shape after the backend refused its lite shape
 * and took the plain one. Then the lite shape is tried again (the catalogue still asks for it).
 */
export const LITE_REFUSAL_MEMORY_MS = 60 * 60_000;

/**
 * Which dialect a /responses request goes in, and the models whose lite shape the backend refused.
 * The memory is this process's own (one per handler): another instance learns it by its own fallback.
 */
export function createResponsesDialect(now: () => number) {
  const refusedUntil = new Map<string, number>();

  function refusedLately(model: string): boolean {
    const until = refusedUntil.get(model);
    if (until === undefined) return false;
    if (until > now()) return true;
    refusedUntil.delete(model);
    return false;
  }

  return {
    /**
     * True for the lite shape: the model's catalogue entry says `use_responses_lite: true`, the
     * body's tools fit it, and the backend has not refused it for this model lately.
     */
    speaksLite(entry: ModelInfo | undefined, body: Record<string, unknown>): boolean {
      return entry?.use_responses_lite === true && fitsResponsesLite(body) && !refusedLately(entry.slug);
    },
    /** The backend refused the model's lite shape and served the plain one. */
    rememberRefusal(model: string): void {
      refusedUntil.set(model, now() + LITE_REFUSAL_MEMORY_MS);
    },
  };
}
