"use client";

import { useEffect, useId, useImperativeHandle, useRef, useState, type KeyboardEvent, type ReactNode, type Ref } from "react";
import { MoreIcon } from "./conversation-icons";

interface RowMenuItem {
  /** Also the item's data-testid. */
  id: string;
  label: string;
  icon: ReactNode;
  onSelect: () => void;
  destructive?: boolean;
}

/** What the row does with its menu from the keyboard (ArrowRight, Shift+F10). */
export interface RowMenuHandle {
  /** Moves the focus to the "…" button. */
  focusButton(): void;
  /** Opens the menu at its first item. */
  open(): void;
}

interface ConversationRowMenuProps {
  title: string;
  items: RowMenuItem[];
  ref?: Ref<RowMenuHandle>;
  /** ArrowLeft on the "…" button: back to the row. */
  onBackToRow: () => void;
}

const MENU_WIDTH = 208;
const ITEM_HEIGHT = 36;
const EDGE = 8;

/**
 * A conversation row's "…" menu (WAI-ARIA menu button): Enter, Space or the arrow keys open it,
 * the arrows, Home and End move between items, Escape closes it and returns focus to the button,
 * Tab closes it. The button is not a Tab stop of its own (the list is one, see useRovingRows): the
 * row's ArrowRight reaches it and ArrowLeft goes back, Shift+F10 on the row opens the menu. The menu
 * is placed fixed under the button (above it near the bottom of the window), so the list's
 * scrolling never clips it.
 */
export function ConversationRowMenu({ title, items, ref, onBackToRow }: ConversationRowMenuProps) {
  const [openAt, setOpenAt] = useState<{ top: number; left: number; focus: number } | null>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  const itemRefs = useRef<(HTMLButtonElement | null)[]>([]);
  const menuId = useId();

  const open = (focus: number) => {
    const rect = buttonRef.current?.getBoundingClientRect();
    if (!rect) return;
    const height = items.length * ITEM_HEIGHT + 2 * EDGE;
    const below = rect.bottom + 4;
    const top = below + height > window.innerHeight - EDGE ? Math.max(EDGE, rect.top - height - 4) : below;
    const left = Math.min(Math.max(EDGE, rect.right - MENU_WIDTH), window.innerWidth - MENU_WIDTH - EDGE);
    setOpenAt({ top, left, focus });
  };
  const close = (returnFocus: boolean) => {
    setOpenAt(null);
    if (returnFocus) buttonRef.current?.focus();
  };

  useImperativeHandle(ref, () => ({ focusButton: () => buttonRef.current?.focus(), open: () => open(0) }));

  const focusIndex = openAt?.focus;
  useEffect(() => {
    if (focusIndex !== undefined) itemRefs.current[focusIndex]?.focus();
  }, [focusIndex]);

  // A press outside, a scroll or a resize closes it (the fixed position would no longer fit).
  const isOpen = openAt !== null;
  useEffect(() => {
    if (!isOpen) return;
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menuRef.current?.contains(target) && !buttonRef.current?.contains(target)) setOpenAt(null);
    };
    const onMove = (event: Event) => {
      if (!menuRef.current?.contains(event.target as Node)) setOpenAt(null);
    };
    document.addEventListener("pointerdown", onPointerDown);
    window.addEventListener("scroll", onMove, true);
    window.addEventListener("resize", onMove);
    return () => {
      document.removeEventListener("pointerdown", onPointerDown);
      window.removeEventListener("scroll", onMove, true);
      window.removeEventListener("resize", onMove);
    };
  }, [isOpen]);

  const onButtonKeyDown = (event: KeyboardEvent) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      open(event.key === "ArrowDown" ? 0 : items.length - 1);
    } else if (event.key === "ArrowLeft") {
      event.preventDefault();
      onBackToRow();
    }
  };

  const onMenuKeyDown = (event: KeyboardEvent) => {
    const current = itemRefs.current.findIndex((item) => item === document.activeElement);
    const moveTo = (index: number) => {
      event.preventDefault();
      itemRefs.current[(index + items.length) % items.length]?.focus();
    };
    if (event.key === "ArrowDown") moveTo(current + 1);
    else if (event.key === "ArrowUp") moveTo(current - 1);
    else if (event.key === "Home") moveTo(0);
    else if (event.key === "End") moveTo(items.length - 1);
    else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close(true);
    } else if (event.key === "Tab") close(false);
  };

  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        data-testid="conversation-menu-button"
        data-open={isOpen ? "true" : undefined}
        tabIndex={-1}
        aria-label={`Options for “${title}”`}
        aria-haspopup="menu"
        aria-expanded={isOpen}
        aria-controls={isOpen ? menuId : undefined}
        onClick={() => (isOpen ? close(false) : open(0))}
        onKeyDown={onButtonKeyDown}
        className="absolute top-1.5 right-1 inline-flex size-7 items-center justify-center rounded-md text-muted-foreground opacity-0 transition-opacity group-focus-within/item:opacity-100 group-hover/item:opacity-100 hover:bg-muted hover:text-foreground focus-visible:opacity-100 focus-visible:outline-2 focus-visible:outline-ring data-[open=true]:opacity-100 [@media(hover:none)]:opacity-100"
      >
        <MoreIcon className="size-4" />
      </button>
      {openAt && (
        <div
          ref={menuRef}
          id={menuId}
          role="menu"
          data-testid="conversation-menu"
          aria-label={`Options for “${title}”`}
          onKeyDown={onMenuKeyDown}
          style={{ top: openAt.top, left: openAt.left, width: MENU_WIDTH }}
          className="fixed z-50 flex flex-col rounded-xl border border-border bg-card p-1 text-foreground shadow-lg"
        >
          {items.map((item, index) => (
            <button
              key={item.id}
              ref={(element) => {
                itemRefs.current[index] = element;
              }}
              type="button"
              role="menuitem"
              tabIndex={-1}
              data-testid={item.id}
              onClick={() => {
                close(true);
                item.onSelect();
              }}
              className={`flex h-9 items-center gap-2.5 rounded-lg px-2.5 text-start text-sm outline-none hover:bg-muted focus-visible:bg-muted ${
                item.destructive ? "text-destructive" : ""
              }`}
            >
              {item.icon}
              {item.label}
            </button>
          ))}
        </div>
      )}
    </>
  );
}
