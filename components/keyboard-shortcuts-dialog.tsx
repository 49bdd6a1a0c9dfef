"use client";

import { useState } from "react";
import { isMacPlatform, shortcutList } from "@/lib/client/keyboard-shortcuts";
import { ghostButton } from "./ui/button-styles";
import { XIcon } from "./ui/icons";
import { ModalDialog } from "./ui/modal-dialog";

interface KeyboardShortcutsDialogProps {
  open: boolean;
  onClose: () => void;
}

/** Lists the keyboard shortcuts; opened with `?`, closed with Escape (the dialog's own cancel). */
export function KeyboardShortcutsDialog({ open, onClose }: KeyboardShortcutsDialogProps) {
  const [mac] = useState(() => typeof navigator !== "undefined" && isMacPlatform(navigator));

  return (
    <ModalDialog
      open={open}
      data-testid="shortcuts-dialog"
      aria-labelledby="shortcuts-title"
      onCancel={onClose}
      onClose={onClose}
      className="m-auto w-[min(26rem,calc(100vw-2rem))] rounded-2xl border border-border bg-card p-5 text-foreground shadow-xl backdrop:bg-black/40"
    >
      <div className="flex items-center justify-between gap-2">
        <h2 id="shortcuts-title" className="text-base font-semibold">
          Keyboard shortcuts
        </h2>
        <button type="button" onClick={onClose} aria-label="Close" autoFocus className={`${ghostButton} -mr-2 px-2`}>
          <XIcon className="size-4" />
        </button>
      </div>
      <dl className="mt-3 flex flex-col text-sm">
        {shortcutList(mac).map((shortcut) => (
          <div key={shortcut.action} className="flex items-center justify-between gap-4 border-t border-border py-2 first:border-t-0">
            <dt>{shortcut.label}</dt>
            <dd className="flex shrink-0 flex-wrap items-center justify-end gap-1.5 text-muted-foreground">
              {shortcut.combos.map((combo, index) => (
                <span key={index} className="flex items-center gap-1">
                  {index > 0 && <span className="text-xs">or</span>}
                  {combo.map((key) => (
                    <kbd key={key} className="min-w-6 rounded-md border border-border bg-muted px-1.5 py-0.5 text-center font-sans text-xs text-foreground">
                      {key}
                    </kbd>
                  ))}
                </span>
              ))}
            </dd>
          </div>
        ))}
      </dl>
      <p className="mt-3 text-xs text-muted-foreground">In a message being edited, Enter sends, Shift+Enter adds a line and Escape cancels.</p>
      <p className="mt-1.5 text-xs text-muted-foreground">
        The conversation list is one Tab stop: the arrow keys, Home and End move between chats, Right arrow reaches a chat&apos;s … menu, Shift+F10 opens it.
      </p>
    </ModalDialog>
  );
}
