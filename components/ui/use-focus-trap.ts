"use client";

import { useEffect, useRef, type RefObject } from "react";

const CANDIDATES = "a[href], button, input, select, textarea, [tabindex]";

/** What Tab can reach inside `container`, in order. */
function tabStops(container: HTMLElement): HTMLElement[] {
  return [...container.querySelectorAll<HTMLElement>(CANDIDATES)].filter(
    (element) => element.tabIndex >= 0 && !element.matches(":disabled") && element.getClientRects().length > 0,
  );
}

/**
 * Keeps the keyboard inside `containerRef` for as long as the component using it is on screen, the
 * way the app's modal dialogs do: focus moves in (to the first control), Tab and Shift+Tab wrap
 * around inside, Escape calls `onEscape`, and when it goes the focus returns to where it was, unless
 * something else took it meanwhile (an opened conversation's message box). A native dialog opened
 * on top (the keyboard shortcuts) keeps its own keys.
 */
export function useFocusTrap(containerRef: RefObject<HTMLElement | null>, onEscape: () => void): void {
  const onEscapeRef = useRef(onEscape);
  useEffect(() => {
    onEscapeRef.current = onEscape;
  }, [onEscape]);

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!container.contains(document.activeElement)) tabStops(container)[0]?.focus();

    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || document.querySelector("dialog[open]")) return;
      if (event.key === "Escape") {
        event.preventDefault();
        onEscapeRef.current();
        return;
      }
      if (event.key !== "Tab") return;
      const stops = tabStops(container);
      const first = stops[0];
      const last = stops.at(-1);
      if (!first || !last) return;
      const inside = container.contains(document.activeElement);
      if (event.shiftKey ? !inside || document.activeElement === first : !inside || document.activeElement === last) {
        event.preventDefault();
        (event.shiftKey ? last : first).focus();
      }
    };
    document.addEventListener("keydown", onKeyDown);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      const current = document.activeElement;
      if ((current === null || current === document.body || !current.isConnected) && previous?.isConnected) previous.focus();
    };
  }, [containerRef]);
}
