"use client";

import { useEffect, useState, useSyncExternalStore } from "react";
import type { OnDemand } from "@/lib/client/on-demand";

type OnDemandState<T> =
  | { status: "loading" }
  | { status: "ready"; module: T }
  /** The download failed (the connection dropped); `retry` tries again. */
  | { status: "failed"; retry: () => void };

/**
 * A part loaded on demand, as a screen shows it: loading, ready, or failed with a way to try again.
 * Nothing is downloaded until `wanted` is true; a part already loaded is ready on the first render,
 * and every screen waiting on it turns ready when any of them has loaded it.
 */
export function useOnDemand<T>(part: OnDemand<T>, wanted = true): OnDemandState<T> {
  // The server's render (and hydration) sees the same: a part is loaded only by an import() in this page.
  const loaded = useSyncExternalStore(part.subscribe, part.loaded, part.loaded);
  const [attempt, setAttempt] = useState(0);
  const [failedAttempt, setFailedAttempt] = useState(-1);

  useEffect(() => {
    if (!wanted || loaded !== undefined) return;
    let active = true;
    part.load().catch(() => {
      if (active) setFailedAttempt(attempt);
    });
    return () => {
      active = false;
    };
  }, [part, wanted, loaded, attempt]);

  if (loaded !== undefined) return { status: "ready", module: loaded };
  if (failedAttempt === attempt) return { status: "failed", retry: () => setAttempt(attempt + 1) };
  return { status: "loading" };
}
