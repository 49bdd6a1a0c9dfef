"use client";

import { useEffect, useState } from "react";
import type { OnDemand } from "@/lib/client/on-demand";

type OnDemandState<T> =
  | { status: "loading" }
  | { status: "ready"; module: T }
  /** The download failed (the connection dropped); `retry` tries again. */
  | { status: "failed"; retry: () => void };

/**
 * A part loaded on demand, as a screen shows it: loading, ready, or failed with a way to try again.
 * Nothing is downloaded until `wanted` is true; a part already loaded is ready on the first render.
 */
export function useOnDemand<T>(part: OnDemand<T>, wanted = true): OnDemandState<T> {
  const [module, setModule] = useState<T | undefined>(() => part.loaded());
  const [attempt, setAttempt] = useState(0);
  const [failedAttempt, setFailedAttempt] = useState(-1);
  const current = module ?? part.loaded();

  useEffect(() => {
    if (!wanted || current !== undefined) return;
    let active = true;
    part.load().then(
      (loaded) => {
        if (active) setModule(() => loaded);
      },
      () => {
        if (active) setFailedAttempt(attempt);
      },
    );
    return () => {
      active = false;
    };
  }, [part, wanted, current, attempt]);

  if (current !== undefined) return { status: "ready", module: current };
  if (failedAttempt === attempt) return { status: "failed", retry: () => setAttempt(attempt + 1) };
  return { status: "loading" };
}
