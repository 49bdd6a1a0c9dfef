"use client";

import { useState, type KeyboardEvent } from "react";

/** The attribute every row's button carries: its conversation id (ConversationRow). */
const ROW_ATTRIBUTE = "data-row-id";

interface RovingRows {
  /** The one row that is a Tab stop. */
  tabStopId: string | undefined;
  /** A row got the focus: it becomes the Tab stop, so Tab back into the list returns to it. */
  onRowFocus: (id: string) => void;
  /** On the element around the rows: ArrowUp, ArrowDown, Home and End move between rows. */
  onKeyDown: (event: KeyboardEvent<HTMLElement>) => void;
}

const MOVES: Record<string, (index: number, count: number) => number> = {
  ArrowDown: (index, count) => Math.min(index + 1, count - 1),
  ArrowUp: (index) => Math.max(index - 1, 0),
  Home: () => 0,
  End: (_index, count) => count - 1,
};

/**
 * The conversation list as one Tab stop (a roving tabindex, as WAI-ARIA's composite widgets do):
 * the row last focused, else the open conversation's, else the first; the arrow keys, Home and
 * End move between rows in the order shown. With 200 chats the messages are two Tab presses away,
 * not 400.
 */
export function useRovingRows(rowIds: readonly string[], activeId: string | null): RovingRows {
  const [focusedId, setFocusedId] = useState<string | undefined>(undefined);
  const tabStopId =
    focusedId !== undefined && rowIds.includes(focusedId) ? focusedId : activeId !== null && rowIds.includes(activeId) ? activeId : rowIds[0];

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    const move = MOVES[event.key];
    const from = (event.target as HTMLElement).getAttribute(ROW_ATTRIBUTE);
    if (!move || from === null || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const rows = [...event.currentTarget.querySelectorAll<HTMLElement>(`[${ROW_ATTRIBUTE}]`)];
    const next = rows[move(rows.findIndex((row) => row.getAttribute(ROW_ATTRIBUTE) === from), rows.length)];
    if (!next) return;
    event.preventDefault();
    next.focus();
  };

  return { tabStopId, onRowFocus: setFocusedId, onKeyDown };
}
