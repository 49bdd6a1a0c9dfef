"use client";

import { useRef, type ReactNode } from "react";
import { ghostButton } from "../ui/button-styles";
import { XIcon } from "../ui/icons";
import { useFocusTrap } from "../ui/use-focus-trap";

/**
 * The conversation list on narrow screens: a modal panel from the left over a dimmed chat. Like the
 * app's dialogs it takes the focus, keeps Tab inside and closes on Escape (or a tap beside it),
 * giving the focus back to the button that opened it.
 */
export function ConversationDrawer({ onClose, children }: { onClose: () => void; children: ReactNode }) {
  const panelRef = useRef<HTMLDivElement>(null);
  useFocusTrap(panelRef, onClose);
  return (
    <div className="fixed inset-0 z-40 flex lg:hidden" data-testid="conversations-drawer">
      {/* For the pointer only: the keyboard closes with Escape or the panel's own button. */}
      <button type="button" tabIndex={-1} aria-label="Close conversations" onClick={onClose} className="absolute inset-0 bg-black/40" />
      <div ref={panelRef} role="dialog" aria-modal="true" aria-label="Conversations" className="relative flex w-[min(18rem,85vw)] flex-col bg-background shadow-xl">
        <div className="flex justify-end p-1">
          <button type="button" onClick={onClose} aria-label="Close conversations" className={`${ghostButton} px-2`}>
            <XIcon className="size-4" />
          </button>
        </div>
        {children}
      </div>
    </div>
  );
}
