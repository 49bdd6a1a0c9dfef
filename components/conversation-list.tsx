"use client";

import { useState, type FormEvent } from "react";
import type { ConversationSummary } from "@/lib/client/conversation-store";
import { iconButton } from "./button-styles";
import { PencilIcon, PlusIcon, TrashIcon } from "./icons";

interface ConversationListProps {
  conversations: ConversationSummary[];
  activeId: string | null;
  onOpen: (id: string) => void;
  onNew: () => void;
  onRename: (id: string, title: string) => void;
  onDelete: (id: string) => void;
  /** False when this browser cannot keep conversations. */
  persistent: boolean;
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
          if (event.key === "Escape") onDone(null);
        }}
        onBlur={() => onDone(title.trim() || null)}
        autoFocus
        className="h-8 w-full rounded-md border border-input bg-card px-2 text-sm text-foreground focus:outline-2 focus:outline-ring"
      />
    </form>
  );
}

/** The account's conversations kept in this browser, newest first: open, rename, delete, start a new one. */
export function ConversationList({ conversations, activeId, onOpen, onNew, onRename, onDelete, persistent }: ConversationListProps) {
  const [renamingId, setRenamingId] = useState<string | null>(null);
  return (
    <nav aria-label="Conversations" className="flex min-h-0 flex-1 flex-col">
      <div className="p-2">
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
                className={`group/item flex items-center gap-0.5 rounded-lg ${active ? "bg-muted" : "hover:bg-muted/60"}`}
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
                      className="min-w-0 flex-1 truncate rounded-lg px-3 py-2 text-start text-sm text-foreground focus-visible:outline-2 focus-visible:outline-ring"
                    >
                      {conversation.title}
                    </button>
                    <button
                      type="button"
                      data-testid="conversation-rename"
                      onClick={() => setRenamingId(conversation.id)}
                      aria-label={`Rename “${conversation.title}”`}
                      className={`${iconButton} size-7 shrink-0`}
                    >
                      <PencilIcon className="size-3.5" />
                    </button>
                    <button
                      type="button"
                      data-testid="conversation-delete"
                      onClick={() => onDelete(conversation.id)}
                      aria-label={`Delete “${conversation.title}”`}
                      className={`${iconButton} size-7 shrink-0`}
                    >
                      <TrashIcon className="size-3.5" />
                    </button>
                  </>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <p data-testid="storage-note" className="border-t border-border px-4 py-2 text-[11px] leading-4 text-muted-foreground">
        {persistent
          ? "Kept in this browser only, never on the server."
          : "This browser is not keeping conversations (storage unavailable or full): they last until this tab closes."}
      </p>
    </nav>
  );
}
