"use client";

import { useEffect, type RefObject } from "react";

/** Asks a conversation to show one of its messages (a search result); each new object asks again. */
export interface MessageHighlight {
  messageId: string;
}

// Input that means the person is taking over: stop holding the message in view.
const TAKE_OVER_EVENTS = ["wheel", "touchstart", "keydown", "pointerdown"] as const;

/**
 * Scrolls the asked-for message into the middle of the view and marks it `data-highlighted` (the
 * style is in globals.css). Answers above it may still grow as they render (code, maths), so it is
 * held in view until the person scrolls, types or clicks; the mark stays until the next request.
 */
export function useMessageHighlight(
  scrollRef: RefObject<HTMLElement | null>,
  contentRef: RefObject<HTMLElement | null>,
  highlight: MessageHighlight | undefined,
  stopFollowing: () => void,
): void {
  useEffect(() => {
    if (!highlight) return;
    const content = contentRef.current;
    const target = scrollRef.current?.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(highlight.messageId)}"]`);
    if (!content || !target) return;
    stopFollowing();
    const show = () => target.scrollIntoView({ block: "center" });
    const observer = new ResizeObserver(show);
    observer.observe(content);
    show();
    target.dataset.highlighted = "true";
    const release = () => {
      observer.disconnect();
      for (const type of TAKE_OVER_EVENTS) window.removeEventListener(type, release, true);
    };
    for (const type of TAKE_OVER_EVENTS) window.addEventListener(type, release, { capture: true, passive: true });
    return () => {
      release();
      delete target.dataset.highlighted;
    };
  }, [highlight, scrollRef, contentRef, stopFollowing]);
}
