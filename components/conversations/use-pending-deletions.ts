"use client";

import { useCallback, useEffect, useRef, useState } from "react";

/** A conversation deleted from the list but still kept until its Undo window ends. */
export interface PendingDeletion {
  id: string;
  title: string;
}

/** How long a deleted conversation can be taken back; it stays in the browser until then (a reload keeps it). */
const UNDO_WINDOW_MS = 10_000;

interface PendingDeletions {
  pending: PendingDeletion[];
  /** Whether a conversation waits for its Undo window to end. */
  isPending: (id: string) => boolean;
  /** Starts the Undo window; false when the conversation is already waiting. */
  start: (id: string, title: string) => boolean;
  undo: (id: string) => void;
}

/**
 * Deletions that can be taken back: each conversation is deleted (`deleteNow`, then `deleted`)
 * when its Undo window has passed. Leaving (signing out, another account) deletes those still
 * waiting at once.
 */
export function usePendingDeletions(deleteNow: (id: string) => Promise<void>, deleted: () => void): PendingDeletions {
  const [pending, setPending] = useState<PendingDeletion[]>([]);
  const timersRef = useRef(new Map<string, ReturnType<typeof setTimeout>>());

  const start = useCallback(
    (id: string, title: string) => {
      const timers = timersRef.current;
      if (timers.has(id)) return false;
      timers.set(
        id,
        setTimeout(() => {
          timers.delete(id);
          setPending((current) => current.filter((waiting) => waiting.id !== id));
          void deleteNow(id).then(deleted);
        }, UNDO_WINDOW_MS),
      );
      setPending((current) => [...current, { id, title }]);
      return true;
    },
    [deleteNow, deleted],
  );

  const undo = useCallback((id: string) => {
    const timer = timersRef.current.get(id);
    if (timer === undefined) return;
    clearTimeout(timer);
    timersRef.current.delete(id);
    setPending((current) => current.filter((waiting) => waiting.id !== id));
  }, []);

  useEffect(() => {
    const timers = timersRef.current;
    return () => {
      for (const [id, timer] of timers) {
        clearTimeout(timer);
        void deleteNow(id);
      }
      timers.clear();
    };
  }, [deleteNow]);

  const isPending = useCallback((id: string) => timersRef.current.has(id), []);
  return { pending, isPending, start, undo };
}
