"use client";

import { useEffect } from "react";

/** The browser tab names the open conversation; the title before comes back when the screen goes (sign-out). */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    const previous = document.title;
    document.title = title;
    return () => {
      document.title = previous;
    };
  }, [title]);
}
