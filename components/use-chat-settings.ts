"use client";

import { useCallback, useState } from "react";
import {
  DEFAULT_REASONING_EFFORT,
  isReasoningEffort,
  type ChatCallSettings,
  type ReasoningEffort,
} from "@/lib/client/chat-request-options";
import { readStored, writeStored } from "@/lib/client/local-preferences";

const STORAGE_KEYS = {
  model: "lwc:model",
  reasoningEffort: "lwc:reasoning-effort",
  fast: "lwc:fast",
} as const;

export interface ChatSettings {
  /** The chosen model, or "" while the list is loading or empty. */
  model: string;
  reasoningEffort: ReasoningEffort;
  fast: boolean;
  setModel(model: string): void;
  setReasoningEffort(effort: ReasoningEffort): void;
  setFast(fast: boolean): void;
  /** The settings for the next call, or null when no model can be used yet. */
  current: ChatCallSettings | null;
}

/**
 * The model, reasoning effort and Fast choices, remembered in localStorage. The model falls back to the
 * first listed one when the remembered choice is not (or no longer) in the account's list.
 * Only rendered in the browser (the signed-in screen never renders on the server), so storage is readable.
 */
export function useChatSettings(models: string[]): ChatSettings {
  const [preferredModel, setPreferredModel] = useState<string | null>(() => readStored(STORAGE_KEYS.model));
  const [reasoningEffort, setEffortState] = useState<ReasoningEffort>(() => {
    const stored = readStored(STORAGE_KEYS.reasoningEffort);
    return isReasoningEffort(stored) ? stored : DEFAULT_REASONING_EFFORT;
  });
  const [fast, setFastState] = useState<boolean>(() => readStored(STORAGE_KEYS.fast) === "true");

  const model = preferredModel && models.includes(preferredModel) ? preferredModel : (models[0] ?? "");

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
    reasoningEffort,
    fast,
    setModel,
    setReasoningEffort,
    setFast,
    current: model ? { model, reasoningEffort, fast } : null,
  };
}
