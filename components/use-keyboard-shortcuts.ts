"use client";

import { useEffect, useRef } from "react";
import { isMacPlatform, shortcutFor, type ShortcutAction } from "@/lib/client/keyboard-shortcuts";

/** Where a typed `?` is text, not a shortcut. */
function isTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !["button", "checkbox", "radio", "range", "reset", "submit", "color", "file", "image"].includes(target.type);
}

/** The page-wide keyboard shortcuts (lib/client/keyboard-shortcuts.ts); `handlers` may change on every render. */
export function useKeyboardShortcuts(handlers: Record<ShortcutAction, (() => void) | undefined>): void {
  const handlersRef = useRef(handlers);
  useEffect(() => {
    handlersRef.current = handlers;
  });

  useEffect(() => {
    const mac = isMacPlatform(navigator);
    const onKeyDown = (event: KeyboardEvent) => {
      // Nothing behind an open dialog (sign out, voice, the shortcuts list itself) moves.
      if (event.defaultPrevented || document.querySelector("dialog[open]")) return;
      const action = shortcutFor(
        {
          key: event.key,
          code: event.code,
          ctrlKey: event.ctrlKey,
          metaKey: event.metaKey,
          shiftKey: event.shiftKey,
          altKey: event.altKey,
          isComposing: event.isComposing,
          inTextField: isTextField(event.target),
        },
        mac,
      );
      const handler = action ? handlersRef.current[action] : undefined;
      if (!handler) return;
      event.preventDefault();
      handler();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, []);
}
