"use client";

import { useState, useSyncExternalStore, type FormEvent, type ReactNode } from "react";
import type { ConversationSummary } from "@/lib/client/conversation-store";
import { DownloadIcon, SearchIcon, ShareIcon } from "./conversation-icons";
import { ConversationRowMenu } from "./conversation-row-menu";
import { PencilIcon, PlusIcon, TrashIcon } from "../ui/icons";

export type ExportKind = "markdown" | "json";

interface ConversationListProps {
  conversations: ConversationSummary[];
  activeId: string | null;
  onOpen: (id: string) => void;
  onNew: () => void;
  onRename: (id: string, title: string) => void;
  /** Deletes with an Undo window (see useConversations). */
  onDelete: (id: string) => void;
  onExport: (id: string, kind: ExportKind) => void;
  /** Opens the search dialog. */
  onSearch: () => void;
  /** The pointer or focus is on the search field: a good moment to load the search code. */
  onSearchIntent?: () => void;
  /** Export all and Import, under the list. */
  tools?: ReactNode;
  /** False when this browser cannot keep conversations. */
  persistent: boolean;
  /** Where they are kept, in one line (default: in this browser only). */
  storageNote?: string;
  /** A read-only link to a snapshot (only where the server keeps chats). */
  onShare?: (id: string) => void;
}

function RenameForm({ conversation, onDone }: { conversation: ConversationSummary; onDone: (title: string | null) => void }) {
  const [title, setTitle] = useState(conversation.title);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onDone(title.trim() || null);
  };
  return (
    <form onSubmit={submit} className="flex-1 px-1 py-0.5">
      <label htmlFor={`rename-${conversation.id}`} className="sr-only">
        New name for “{conversation.title}”
      </label>
      <input
        id={`rename-${conversation.id}`}
        data-testid="conversation-rename-input"
        dir="auto"
        value={title}
        onChange={(event) => setTitle(event.target.value)}
        onKeyDown={(event) => {
          if (event.key !== "Escape") return;
          // Cancels the rename only, not the drawer around the list.
          event.preventDefault();
          onDone(null);
        }}
        onBlur={() => onDone(title.trim() || null)}
        autoFocus
        className="h-8 w-full rounded-md border border-input bg-card px-2 text-sm text-foreground focus:outline-2 focus:outline-ring"
      />
    </form>
  );
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

/**
 * The account's conversations kept in this browser, newest first: search them, open one, start a
 * new one; each row's menu renames, exports or deletes (the row itself has no delete button).
 */
export function ConversationList({
  conversations,
  activeId,
  onOpen,
  onNew,
  onRename,
  onDelete,
  onExport,
  onSearch,
  onSearchIntent,
  tools,
  persistent,
  storageNote = "Kept in this browser only, never on the server.",
  onShare,
}: ConversationListProps) {
  const [renamingId, setRenamingId] = useState<string | null>(null);
  const keyHint = useSearchKeyHint();
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
        <ul className="min-h-0 flex-1 overflow-y-auto px-2 pb-2">
          {conversations.map((conversation) => {
            const active = conversation.id === activeId;
            return (
              <li
                key={conversation.id}
                data-testid="conversation-item"
                data-active={active ? "true" : undefined}
                className={`group/item relative rounded-lg ${active ? "bg-muted" : "hover:bg-muted/60"}`}
              >
                {renamingId === conversation.id ? (
                  <RenameForm
                    conversation={conversation}
                    onDone={(title) => {
                      setRenamingId(null);
                      if (title && title !== conversation.title) onRename(conversation.id, title);
                    }}
                  />
                ) : (
                  <>
                    <button
                      type="button"
                      data-testid="conversation-link"
                      onClick={() => onOpen(conversation.id)}
                      aria-current={active ? "page" : undefined}
                      dir="auto"
                      className="line-clamp-2 w-full rounded-lg py-2 ps-3 pe-9 text-start text-sm leading-5 [overflow-wrap:anywhere] text-foreground focus-visible:outline-2 focus-visible:outline-ring"
                    >
                      {conversation.title}
                    </button>
                    <ConversationRowMenu
                      title={conversation.title}
                      items={[
                        { id: "conversation-rename", label: "Rename", icon: <PencilIcon className="size-4" />, onSelect: () => setRenamingId(conversation.id) },
                        { id: "conversation-export-markdown", label: "Export as Markdown", icon: <DownloadIcon className="size-4" />, onSelect: () => onExport(conversation.id, "markdown") },
                        { id: "conversation-export-json", label: "Export as JSON", icon: <DownloadIcon className="size-4" />, onSelect: () => onExport(conversation.id, "json") },
                        ...(onShare ? [{ id: "conversation-share", label: "Share", icon: <ShareIcon className="size-4" />, onSelect: () => onShare(conversation.id) }] : []),
                        { id: "conversation-delete", label: "Delete", icon: <TrashIcon className="size-4" />, onSelect: () => onDelete(conversation.id), destructive: true },
                      ]}
                    />
                  </>
                )}
              </li>
            );
          })}
        </ul>
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
