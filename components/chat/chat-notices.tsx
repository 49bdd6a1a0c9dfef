"use client";

import { ghostButton } from "../ui/button-styles";
import { FallbackNotice } from "./fallback-notice";
import { PlanUsageOff } from "./plan-usage";
import type { ModelList } from "./use-model-list";

interface ChatNoticesProps {
  /** Signed in with ChatGPT without plan usage: chat is off until it is enabled. */
  chatOff: boolean;
  onEnablePlanUsage: () => void;
  /** The page is on its way to ChatGPT. */
  redirecting: boolean;
  /** The fast tier was refused for the latest answer. */
  showFallback: boolean;
  onDismissFallback: () => void;
  modelList: ModelList;
  sessionError: string | null;
}

/** What is said above the message box: chat off, Fast refused, the model list or the session failing. */
export function ChatNotices({ chatOff, onEnablePlanUsage, redirecting, showFallback, onDismissFallback, modelList, sessionError }: ChatNoticesProps) {
  return (
    <>
      {chatOff && <PlanUsageOff onEnable={onEnablePlanUsage} redirecting={redirecting} />}
      {showFallback && <FallbackNotice onDismiss={onDismissFallback} />}
      {/* Without plan usage the list is refused too; the line above already says why. */}
      {modelList.error && !chatOff && (
        <div role="alert" data-testid="models-error" className="flex items-center justify-between gap-3 rounded-xl bg-destructive-soft px-3.5 py-2 text-[13px] text-foreground">
          <span>{modelList.error}</span>
          <button type="button" onClick={modelList.retry} className={`${ghostButton} h-7 text-foreground`}>
            Retry
          </button>
        </div>
      )}
      {sessionError && (
        <p role="alert" className="rounded-xl bg-destructive-soft px-3.5 py-2 text-[13px] text-foreground">
          {sessionError}
        </p>
      )}
    </>
  );
}
