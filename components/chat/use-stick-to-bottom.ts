"use client";

import { useCallback, useEffect, useRef, useState, type RefObject } from "react";

/** How close to the bottom (px) still counts as "at the bottom". */
const BOTTOM_SLACK = 48;

/**
 * Keeps a scroll container pinned to its newest content while it grows (streaming), stops following
 * as soon as the person scrolls up, and follows again once they are back at the bottom.
 */
export function useStickToBottom(scrollRef: RefObject<HTMLElement | null>, contentRef: RefObject<HTMLElement | null>) {
  const [atBottom, setAtBottom] = useState(true);
  const followRef = useRef(true);

  const scrollToBottom = useCallback(() => {
    const element = scrollRef.current;
    if (!element) return;
    followRef.current = true;
    setAtBottom(true);
    // Instant, not smooth: a smooth scroll's intermediate positions would read as "the user scrolled up".
    element.scrollTop = element.scrollHeight;
  }, [scrollRef]);

  /** Stops following the newest content (something above is being shown on purpose). */
  const stopFollowing = useCallback(() => {
    followRef.current = false;
    setAtBottom(false);
  }, []);

  useEffect(() => {
    const element = scrollRef.current;
    if (!element) return;
    let lastTop = element.scrollTop;
    // Scroll events arrive a frame late, when streamed content may already have grown, so "not at the
    // bottom" alone does not mean the person scrolled away: only an upward move does.
    const onScroll = () => {
      const top = element.scrollTop;
      const distance = element.scrollHeight - top - element.clientHeight;
      if (distance <= BOTTOM_SLACK) {
        followRef.current = true;
        setAtBottom(true);
      } else if (top < lastTop - 1) {
        followRef.current = false;
        setAtBottom(false);
      }
      lastTop = top;
    };
    element.addEventListener("scroll", onScroll, { passive: true });
    return () => element.removeEventListener("scroll", onScroll);
  }, [scrollRef]);

  // Content growth does not fire scroll events, so follow it with a ResizeObserver.
  useEffect(() => {
    const content = contentRef.current;
    const element = scrollRef.current;
    if (!content || !element) return;
    const observer = new ResizeObserver(() => {
      if (followRef.current) element.scrollTop = element.scrollHeight;
    });
    observer.observe(content);
    return () => observer.disconnect();
  }, [contentRef, scrollRef]);

  return { atBottom, scrollToBottom, stopFollowing };
}
