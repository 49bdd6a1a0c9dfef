"use client";

import { primaryButton } from "../ui/button-styles";
import { ModalDialog } from "../ui/modal-dialog";

/**
 * The one-time notice after the first sign-in with ChatGPT plan usage (OpenAI's UI guidelines):
 * shown while the server says it is due; "Got it" (or Escape) dismisses it for good.
 */
export function PlanNoticeDialog({ open, onDismiss }: { open: boolean; onDismiss: () => void }) {
  return (
    <ModalDialog
      open={open}
      data-testid="plan-notice"
      aria-labelledby="plan-notice-title"
      aria-describedby="plan-notice-text"
      onCancel={(event) => {
        event.preventDefault();
        onDismiss();
      }}
      className="m-auto w-[min(24rem,calc(100vw-2rem))] rounded-2xl border border-border bg-card p-5 text-foreground shadow-xl backdrop:bg-black/40"
    >
      <h2 id="plan-notice-title" className="text-base font-semibold">
        You&apos;re using your ChatGPT plan
      </h2>
      <p id="plan-notice-text" className="mt-1.5 text-sm leading-6 text-muted-foreground">
        Eligible usage in this app uses your ChatGPT plan. Manage usage in your ChatGPT settings.
      </p>
      <button type="button" data-testid="plan-notice-dismiss" onClick={onDismiss} autoFocus className={`${primaryButton} mt-4 h-10 w-full text-sm`}>
        Got it
      </button>
    </ModalDialog>
  );
}
