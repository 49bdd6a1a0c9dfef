"use client";

import type { ReactNode } from "react";
import type { OnDemand } from "@/lib/client/on-demand";
import { secondaryButton } from "./button-styles";
import { LoadFailedAlert } from "./load-failed-alert";
import { LoadingStatus } from "./loading-status";
import { ModalDialog } from "./modal-dialog";
import { useOnDemand } from "./use-on-demand";

interface OnDemandDialogProps<T> {
  /** The dialog's code, downloaded when it first opens. */
  part: OnDemand<T>;
  /** The dialog's name, for the stand-in shown while it downloads. */
  label: string;
  /** What the alert says when the download fails ("The search did not load"). */
  failedTitle: string;
  /** The dialog's own frame (size, place, backdrop), so the real one takes the stand-in's place. */
  frameClassName: string;
  onClose: () => void;
  /** The dialog, once its code is here. */
  children: (module: T) => ReactNode;
}

/**
 * A dialog whose code is downloaded when it is first opened. Until then a stand-in in the same
 * frame holds a spinner, shown only when the download takes a moment (`lwc-appear-late`), or says
 * that the download failed, with Try again; Escape or Close cancel it.
 */
export function OnDemandDialog<T>({ part, label, failedTitle, frameClassName, onClose, children }: OnDemandDialogProps<T>) {
  const state = useOnDemand(part);
  if (state.status === "ready") return children(state.module);
  return (
    <ModalDialog
      restoreFocus
      aria-label={label}
      data-testid="on-demand-dialog"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      className={`${frameClassName} ${state.status === "loading" ? "lwc-appear-late" : ""}`}
    >
      {state.status === "loading" ? (
        <LoadingStatus />
      ) : (
        <div className="flex flex-col gap-3 p-4">
          <LoadFailedAlert title={failedTitle} onRetry={state.retry} autoFocus />
          <button type="button" onClick={onClose} className={`${secondaryButton} self-end`}>
            Close
          </button>
        </div>
      )}
    </ModalDialog>
  );
}
