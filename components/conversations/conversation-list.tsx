"use client";

import { useEffect, useId, useState, useSyncExternalStore, type ReactNode } from "react";
import { groupConversations } from "@/lib/client/conversation-groups";
import type { ConversationSummary } from "@/lib/client/conversation-store";
import { ChevronIcon, SearchIcon } from "./conversation-icons";
import { ConversationRow, type RowActions } from "./conversation-row";
import { useRovingRows } from "./use-roving-rows";
import { PlusIcon } from "../ui/icons";

interface ConversationListProps {
  conversations: ConversationSummary[];
  activeId: string | null;
  /** Open, rename, pin, archive, export, delete. */
  actions: RowActions;
  onNew: () => void;
  /** Opens the search dialog. */
  onSearch: () => void;
  /** The pointer or focus is on the search field: a good moment to load the search code. */
  onSearchIntent?: () => void;
  /** Under the list: Export all and Import, and the setting for generated titles. */
  tools?: ReactNode;
  /** False when this browser cannot keep conversations. */
  persistent: boolean;
  /** Where they are kept, in one line (default: in this browser only). */
  storageNote?: string;
}

const neverChanges = () => () => {};

/** "Ctrl K", or "⌘ K" on Apple keyboards ("Ctrl K" in the server's render: it has no keyboard). */
function useSearchKeyHint(): string {
  return useSyncExternalStore(
    neverChanges,
    () => (/Mac|iPhone|iPad/.test(navigator.platform) ? "⌘ K" : "Ctrl K"),
    () => "Ctrl K",
  );
}

/** "Now", moved on every minute, so a conversation passes from Today to Yesterday at midnight. */
function useMinuteClock(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/**
 * The account's conversations kept in this browser: search them, start a new one, open one. Pinned
 * ones first, then by date (Today, Yesterday, Previous 7 days, Previous 30 days, months); archived
 * ones in their own section, folded. Each row's menu pins, renames, archives, exports or deletes.
 * The rows are one Tab stop (useRovingRows).
 */
export function ConversationList({
  conversations,
  activeId,
  actions,
  onNew,
  onSearch,
  onSearchIntent,
  tools,
  persistent,
  storageNote = "Kept in this browser only, never on the server.",
}: ConversationListProps) {
  const keyHint = useSearchKeyHint();
  const now = useMinuteClock();
  const [archivedOpen, setArchivedOpen] = useState(false);
  const listId = useId();
  const archivedId = `${listId}-archived`;
  const { groups, archived } = groupConversations(conversations, now);
  const shownIds = [...groups.flatMap((group) => group.conversations), ...(archivedOpen ? archived : [])].map((conversation) => conversation.id);
  const roving = useRovingRows(shownIds, activeId);
  const row = (conversation: ConversationSummary) => (
    <ConversationRow
      key={conversation.id}
      conversation={conversation}
      active={conversation.id === activeId}
      tabStop={conversation.id === roving.tabStopId}
      onFocus={() => roving.onRowFocus(conversation.id)}
      actions={actions}
    />
  );
  return (
    <nav aria-label="Conversations" className="flex min-h-0 flex-1 flex-col">
      <div className="flex flex-col gap-1 p-2">
        <button
          type="button"
          data-testid="conversation-search-button"
          onClick={onSearch}
          onPointerEnter={onSearchIntent}
          onFocus={onSearchIntent}
          aria-haspopup="dialog"
          aria-keyshortcuts="Control+K Meta+K"
          className="flex h-9 w-full items-center gap-2 rounded-lg border border-input bg-card px-3 text-sm text-muted-foreground hover:bg-muted focus-visible:outline-2 focus-visible:outline-ring"
        >
          <SearchIcon className="size-4" />
          <span className="flex-1 text-start">Search chats</span>
          <kbd aria-hidden="true" className="font-sans text-[11px] [@media(hover:none)]:hidden">
            {keyHint}
          </kbd>
        </button>
        <button
          type="button"
          data-testid="sidebar-new-chat"
          onClick={onNew}
          className="inline-flex h-9 w-full items-center gap-2 rounded-lg px-3 text-sm font-medium text-foreground hover:bg-muted focus-visible:outline-2 focus-visible:outline-ring"
        >
          <PlusIcon className="size-4" />
          New chat
        </button>
      </div>
      {conversations.length === 0 ? (
        <p className="px-4 py-2 text-[13px] text-muted-foreground">No conversations yet.</p>
      ) : (
        <div onKeyDown={roving.onKeyDown} className="min-h-0 flex-1 overflow-y-auto px-2 pb-2">
          {groups.map((group) => (
            <section key={group.key} data-testid="conversation-group" aria-labelledby={`${listId}-${group.key}`} className="pt-2 first:pt-0">
              <h2 id={`${listId}-${group.key}`} data-group-heading className="px-3 pt-1 pb-1 text-[11px] font-medium text-muted-foreground">
                {group.label}
              </h2>
              <ul>{group.conversations.map(row)}</ul>
            </section>
          ))}
          {archived.length > 0 && (
            <div className="pt-2">
              <button
                type="button"
                data-testid="archived-toggle"
                aria-expanded={archivedOpen}
                aria-controls={archivedId}
                onClick={() => setArchivedOpen((open) => !open)}
                className="flex w-full items-center gap-1 rounded-lg px-3 py-1 text-start text-[11px] font-medium text-muted-foreground hover:bg-muted/60 focus-visible:outline-2 focus-visible:outline-ring"
              >
                <ChevronIcon className={`size-3 transition-transform motion-reduce:transition-none ${archivedOpen ? "rotate-90" : ""}`} />
                Archived ({archived.length})
              </button>
              {archivedOpen && (
                <ul id={archivedId} data-testid="archived-conversations">
                  {archived.map(row)}
                </ul>
              )}
            </div>
          )}
        </div>
      )}
      {tools}
      <p data-testid="storage-note" className="border-t border-border px-4 py-2 text-[11px] leading-4 text-muted-foreground">
        {persistent
          ? storageNote
          : "This browser is not keeping conversations (storage unavailable or full): they last until this tab closes."}
      </p>
    </nav>
  );
}
