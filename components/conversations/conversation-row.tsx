"use client";

import { useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import type { ConversationChange, ConversationSummary } from "@/lib/client/conversation-store";
import { ArchiveIcon, DownloadIcon, PinIcon, ShareIcon } from "./conversation-icons";
import { ConversationRowMenu, type RowMenuHandle } from "./conversation-row-menu";
import { PencilIcon, TrashIcon } from "../ui/icons";

export type ExportKind = "markdown" | "json";

/** What a row's menu does to its conversation. */
export interface RowActions {
  onOpen: (id: string) => void;
  onRename: (id: string, title: string) => void;
  onOrganise: (id: string, change: ConversationChange) => void;
  /** Deletes with an Undo window (see useConversations). */
  onDelete: (id: string) => void;
  onExport: (id: string, kind: ExportKind) => void;
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

interface ConversationRowProps {
  conversation: ConversationSummary;
  active: boolean;
  /** The list's one Tab stop (useRovingRows). */
  tabStop: boolean;
  onFocus: () => void;
  actions: RowActions;
}

/**
 * One conversation in the list: its title on one line (cut with an ellipsis, whole in the tooltip
 * and the rename box) and its "…" menu: Pin, Rename, Archive, Export, Share (where the server keeps chats), Delete.
 */
export function ConversationRow({ conversation, active, tabStop, onFocus, actions }: ConversationRowProps) {
  const [renaming, setRenaming] = useState(false);
  const linkRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<RowMenuHandle>(null);
  const { id, title, pinned, archived } = conversation;

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "ArrowRight" && !event.shiftKey) {
      event.preventDefault();
      menuRef.current?.focusButton();
    } else if ((event.key === "F10" && event.shiftKey) || event.key === "ContextMenu") {
      event.preventDefault();
      menuRef.current?.open();
    }
  };

  return (
    <li data-testid="conversation-item" data-active={active ? "true" : undefined} className={`group/item relative rounded-lg ${active ? "bg-muted" : "hover:bg-muted/60"}`}>
      {renaming ? (
        <RenameForm
          conversation={conversation}
          onDone={(name) => {
            setRenaming(false);
            if (name && name !== title) actions.onRename(id, name);
          }}
        />
      ) : (
        <>
          <button
            ref={linkRef}
            type="button"
            data-testid="conversation-link"
            data-row-id={id}
            tabIndex={tabStop ? 0 : -1}
            onClick={() => actions.onOpen(id)}
            onFocus={onFocus}
            onKeyDown={onKeyDown}
            aria-current={active ? "page" : undefined}
            aria-keyshortcuts="Shift+F10"
            title={title}
            dir="auto"
            className="block w-full rounded-lg py-2 ps-3 pe-3 text-start text-sm leading-5 text-foreground focus-visible:outline-2 focus-visible:outline-ring group-focus-within/item:pe-9 group-hover/item:pe-9 group-has-[[data-open=true]]/item:pe-9 [@media(hover:none)]:pe-9"
          >
            <span data-title-text className="block truncate">
              {title}
            </span>
          </button>
          <ConversationRowMenu
            ref={menuRef}
            title={title}
            onBackToRow={() => linkRef.current?.focus()}
            items={[
              { id: "conversation-pin", label: pinned ? "Unpin" : "Pin", icon: <PinIcon className="size-4" />, onSelect: () => actions.onOrganise(id, { pinned: !pinned }) },
              { id: "conversation-rename", label: "Rename", icon: <PencilIcon className="size-4" />, onSelect: () => setRenaming(true) },
              { id: "conversation-archive", label: archived ? "Unarchive" : "Archive", icon: <ArchiveIcon className="size-4" />, onSelect: () => actions.onOrganise(id, { archived: !archived }) },
              { id: "conversation-export-markdown", label: "Export as Markdown", icon: <DownloadIcon className="size-4" />, onSelect: () => actions.onExport(id, "markdown") },
              { id: "conversation-export-json", label: "Export as JSON", icon: <DownloadIcon className="size-4" />, onSelect: () => actions.onExport(id, "json") },
              ...(actions.onShare ? [{ id: "conversation-share", label: "Share", icon: <ShareIcon className="size-4" />, onSelect: () => actions.onShare?.(id) }] : []),
              { id: "conversation-delete", label: "Delete", icon: <TrashIcon className="size-4" />, onSelect: () => actions.onDelete(id), destructive: true },
            ]}
          />
        </>
      )}
    </li>
  );
}
