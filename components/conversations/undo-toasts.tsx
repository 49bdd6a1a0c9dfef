"use client";

import { useEffect, useLayoutEffect, useRef } from "react";
import type { PendingDeletion } from "./use-pending-deletions";

interface UndoToastsProps {
  deletions: PendingDeletion[];
  onUndo: (id: string) => void;
  /** A toast that had the focus went away (undone or its window ended): put the focus somewhere useful. */
  onFocusLost: () => void;
}

function UndoToast({ deletion, onUndo, onFocusLost }: { deletion: PendingDeletion; onUndo: () => void; onFocusLost: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const labelId = `undo-label-${deletion.id}`;

  // The person just deleted: Undo is the one thing they may want next, from the keyboard too.
  useEffect(() => {
    buttonRef.current?.focus();
  }, []);

  const onFocusLostRef = useRef(onFocusLost);
  useEffect(() => {
    onFocusLostRef.current = onFocusLost;
  }, [onFocusLost]);

  // The cleanup runs before the toast leaves the page, while it can still tell whether it holds the
  // focus; once it is gone (not merely re-run), the focus moves on instead of falling to the page.
  useLayoutEffect(() => {
    const node = ref.current;
    return () => {
      if (!node?.contains(document.activeElement)) return;
      queueMicrotask(() => {
        if (!node.isConnected) onFocusLostRef.current();
      });
    };
  }, []);

  return (
    <div
      ref={ref}
      role="status"
      data-testid="undo-toast"
      className="pointer-events-auto flex w-full max-w-sm items-center gap-3 rounded-xl bg-foreground py-2 ps-4 pe-2 text-sm text-background shadow-lg"
    >
      <span id={labelId} dir="auto" className="min-w-0 flex-1 truncate">
        Deleted “{deletion.title}”
      </span>
      <button
        ref={buttonRef}
        type="button"
        data-testid="undo-delete"
        aria-describedby={labelId}
        onClick={onUndo}
        className="h-8 shrink-0 rounded-lg px-3 font-semibold text-background underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-background"
      >
        Undo
      </button>
    </div>
  );
}

/** One toast per conversation waiting to be deleted, each with Undo, until its window ends. */
export function UndoToasts({ deletions, onUndo, onFocusLost }: UndoToastsProps) {
  if (deletions.length === 0) return null;
  return (
    // Under the header, centred: clear of the message box, the list's tools and the phone drawer's edge.
    <div className="pointer-events-none fixed inset-x-0 top-16 z-50 flex flex-col items-center gap-2 px-3">
      {deletions.map((deletion) => (
        <UndoToast key={deletion.id} deletion={deletion} onUndo={() => onUndo(deletion.id)} onFocusLost={onFocusLost} />
      ))}
    </div>
  );
}
