"use client";

import { useEffect, useRef, type ComponentPropsWithoutRef, type RefObject } from "react";

interface ModalDialogProps extends Omit<ComponentPropsWithoutRef<"dialog">, "open"> {
  /** Shown as a modal while true; a dialog that is only rendered while open leaves it out. */
  open?: boolean;
  /** The dialog element, for a caller that closes it itself or tells a click on its backdrop. */
  dialogRef?: RefObject<HTMLDialogElement | null>;
  /** Takes the focus once the dialog is shown (React's autoFocus runs before showModal). */
  initialFocus?: RefObject<HTMLElement | null>;
  /** When it goes, the focus returns to where it was before it opened. */
  restoreFocus?: boolean;
}

/**
 * The app's modal dialog: a native <dialog> shown with showModal() (the rest of the page inert,
 * Escape cancels it, the focus stays inside) while `open`, and closed when it turns false.
 */
export function ModalDialog({ open = true, dialogRef, initialFocus, restoreFocus = false, children, ...props }: ModalDialogProps) {
  const ownRef = useRef<HTMLDialogElement>(null);
  const ref = dialogRef ?? ownRef;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (!open) {
      if (dialog.open) dialog.close();
      return;
    }
    const previous = restoreFocus && document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    initialFocus?.current?.focus();
    return () => {
      if (previous?.isConnected) previous.focus();
    };
  }, [ref, open, initialFocus, restoreFocus]);

  return (
    <dialog ref={ref} {...props}>
      {children}
    </dialog>
  );
}
