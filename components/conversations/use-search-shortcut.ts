"use client";

import { useEffect } from "react";

/** Ctrl+K (⌘K on a Mac) opens the conversation search from anywhere, the message box included (not over a dialog). */
export function useSearchShortcut(openSearch: () => void): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.isComposing || event.altKey || event.shiftKey || !(event.ctrlKey || event.metaKey)) return;
      if (event.key.toLowerCase() !== "k" && event.code !== "KeyK") return;
      event.preventDefault();
      // Not over another dialog (sign out, voice, the shortcuts list); the search's own is already open.
      if (!document.querySelector("dialog[open]")) openSearch();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [openSearch]);
}
