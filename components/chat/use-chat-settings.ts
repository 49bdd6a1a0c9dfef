"use client";

import { useCallback, useState } from "react";
import {
  DEFAULT_REASONING_EFFORT,
  isReasoningEffort,
  type ChatCallSettings,
  type ReasoningEffort,
} from "@/lib/client/chat-request-options";
import { readStored, writeStored } from "@/lib/client/local-preferences";
import { acceptsImages, clampEffort, effortsFor, firstUsableModel, offersFast } from "@/lib/client/model-capabilities";
import type { ModelDetails } from "@/lib/client/provider-proxy";

const STORAGE_KEYS = {
  model: "lwc:model",
  reasoningEffort: "lwc:reasoning-effort",
  fast: "lwc:fast",
} as const;

export interface ChatSettings {
  /** The chosen model, or "" while the list is loading or has no usable model. */
  model: string;
  /** The effort that will be sent: the preferred one, clamped to what the chosen model accepts. */
  reasoningEffort: ReasoningEffort;
  /** The efforts the chosen model accepts. */
  efforts: ReasoningEffort[];
  /** Fast as it will be sent: only where the chosen model has the priority tier. */
  fast: boolean;
  fastAvailable: boolean;
  /** Whether the chosen model takes images as input. */
  imagesAccepted: boolean;
  setModel(model: string): void;
  setReasoningEffort(effort: ReasoningEffort): void;
  setFast(fast: boolean): void;
  /** The settings for the next call, or null when no model can be used yet. */
  current: ChatCallSettings | null;
}

/**
 * The model, reasoning effort and Fast choices, remembered in localStorage. The model falls back to the
 * first usable one when the remembered choice is not (or no longer) in the account's list, or is one
 * the server marks unavailable (gated above its client version). Switching
 * models clamps what is sent to what the new model accepts; the preference itself is kept, so
 * switching back restores it.
 * Only rendered in the browser (the signed-in screen never renders on the server), so storage is readable.
 */
export function useChatSettings(models: ModelDetails[]): ChatSettings {
  const [preferredModel, setPreferredModel] = useState<string | null>(() => readStored(STORAGE_KEYS.model));
  const [reasoningEffort, setEffortState] = useState<ReasoningEffort>(() => {
    const stored = readStored(STORAGE_KEYS.reasoningEffort);
    return isReasoningEffort(stored) ? stored : DEFAULT_REASONING_EFFORT;
  });
  const [fast, setFastState] = useState<boolean>(() => readStored(STORAGE_KEYS.fast) === "true");

  const details = firstUsableModel(models, preferredModel);
  const model = details?.slug ?? "";
  const effort = clampEffort(reasoningEffort, details);
  const fastAvailable = offersFast(details);
  const effectiveFast = fast && fastAvailable;

  const setModel = useCallback((next: string) => {
    setPreferredModel(next);
    writeStored(STORAGE_KEYS.model, next);
  }, []);
  const setReasoningEffort = useCallback((next: ReasoningEffort) => {
    setEffortState(next);
    writeStored(STORAGE_KEYS.reasoningEffort, next);
  }, []);
  const setFast = useCallback((next: boolean) => {
    setFastState(next);
    writeStored(STORAGE_KEYS.fast, String(next));
  }, []);

  return {
    model,
    reasoningEffort: effort,
    efforts: effortsFor(details),
    fast: effectiveFast,
    fastAvailable,
    imagesAccepted: acceptsImages(details),
    setModel,
    setReasoningEffort,
    setFast,
    current: model ? { model, reasoningEffort: effort, fast: effectiveFast } : null,
  };
}
