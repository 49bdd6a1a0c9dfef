"use client";

import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { ConversationSearchIndex, recentHits, type TextSegment } from "@/lib/client/conversation-search";
import type { Conversation } from "@/lib/client/conversation-store";
import { ModalDialog } from "../ui/modal-dialog";
import { SearchIcon } from "./conversation-icons";

export interface ConversationSearchDialogProps {
  accountId: string;
  /** The conversations to search, as kept now. */
  loadConversations: () => Promise<Conversation[]>;
  /** Opens a result: at the message that matched, or at the end when only the title did. */
  onOpen: (conversationId: string, messageId: string | null) => void;
  onClose: () => void;
}

// One index per tab, kept between openings: the next opening re-indexes only what changed.
let kept: { accountId: string; index: ConversationSearchIndex } | null = null;

function indexFor(accountId: string): ConversationSearchIndex {
  if (kept?.accountId !== accountId) kept = { accountId, index: new ConversationSearchIndex() };
  return kept.index;
}

function Marked({ segments }: { segments: TextSegment[] }) {
  return segments.map((segment, index) =>
    segment.match ? (
      <mark key={index} className="rounded-sm bg-accent-soft px-0.5 text-foreground">
        {segment.text}
      </mark>
    ) : (
      <span key={index}>{segment.text}</span>
    ),
  );
}

/**
 * Search over the titles and messages of the conversations this browser keeps (loaded only when
 * first opened: MiniSearch stays out of the chat's first download). Before anything is typed it
 * lists the most recent conversations (archived ones are found by searching). A combobox: type,
 * move with the arrow keys, Enter or a click opens the result; Escape closes.
 */
export default function ConversationSearchDialog({ accountId, loadConversations, onOpen, onClose }: ConversationSearchDialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const [index, setIndex] = useState<ConversationSearchIndex | null>(null);
  const [loaded, setLoaded] = useState<Conversation[]>([]);
  const [failed, setFailed] = useState(false);
  const [progress, setProgress] = useState<number | null>(null);
  const [query, setQuery] = useState("");
  const [activeIndex, setActiveIndex] = useState(-1);
  const listId = useId();

  useEffect(() => {
    let cancelled = false;
    const found = indexFor(accountId);
    loadConversations()
      .then((conversations) => {
        if (!cancelled) setLoaded(conversations);
        return found.sync(conversations, (done, total) => {
          if (!cancelled) setProgress(Math.floor((100 * done) / total));
        });
      })
      .then(
        () => {
          if (!cancelled) setIndex(found);
        },
        () => {
          if (!cancelled) setFailed(true);
        },
      );
    return () => {
      cancelled = true;
    };
  }, [accountId, loadConversations]);

  const trimmed = query.trim();
  const recent = useMemo(() => recentHits(loaded.filter((conversation) => !conversation.archived)), [loaded]);
  const searched = useMemo(() => (index && trimmed ? index.search(query) : []), [index, query, trimmed]);
  const hits = trimmed ? searched : recent;

  const choose = (position: number) => {
    const hit = hits[position];
    if (hit) onOpen(hit.conversationId, hit.messageId);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (hits.length === 0) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActiveIndex((current) => (current + step + hits.length) % hits.length);
    } else if (event.key === "Enter") {
      event.preventDefault();
      choose(Math.max(0, activeIndex));
    }
  };

  const optionId = (position: number) => `${listId}-option-${position}`;
  const status = failed
    ? "The conversations could not be read."
    : !trimmed && recent.length > 0
      ? "Recent conversations. Type to search the titles and messages of all of them."
      : !index
        ? `Indexing the conversations in this browser…${progress === null ? "" : ` ${progress}%`}`
        : !trimmed
          ? "Search the titles and messages of the conversations kept in this browser."
          : hits.length === 0
          ? `No conversations match “${trimmed}”.`
          : `${hits.length} conversation${hits.length === 1 ? "" : "s"} found.`;

  return (
    // Closing gives the focus back to where it was (the message box after Ctrl+K).
    <ModalDialog
      dialogRef={dialogRef}
      initialFocus={inputRef}
      restoreFocus
      data-testid="search-dialog"
      aria-label="Search conversations"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === dialogRef.current) onClose();
      }}
      className="mx-auto mt-[8vh] mb-auto max-h-[80dvh] open:flex w-[min(38rem,calc(100vw-1.5rem))] flex-col overflow-hidden rounded-2xl border border-border bg-card p-0 text-foreground shadow-xl backdrop:bg-black/40"
    >
      <div className="flex items-center gap-2 border-b border-border px-4">
        <SearchIcon className="size-4 shrink-0 text-muted-foreground" />
        <input
          data-testid="search-input"
          type="search"
          role="combobox"
          aria-label="Search conversations"
          aria-expanded={hits.length > 0}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={activeIndex >= 0 && activeIndex < hits.length ? optionId(activeIndex) : undefined}
          ref={inputRef}
          dir="auto"
          value={query}
          onChange={(event) => {
            setQuery(event.target.value);
            setActiveIndex(-1);
          }}
          onKeyDown={onKeyDown}
          placeholder="Search chats"
          className="h-12 min-w-0 flex-1 bg-transparent text-[15px] outline-none placeholder:text-muted-foreground"
        />
      </div>
      <p role="status" className="px-4 pt-3 pb-1 text-[13px] text-muted-foreground">
        {status}
      </p>
      <ul id={listId} role="listbox" aria-label={trimmed ? "Conversations found" : "Recent conversations"} className="min-h-0 flex-1 overflow-y-auto px-2 pb-2">
        {hits.map((hit, position) => (
          <li
            key={hit.conversationId}
            id={optionId(position)}
            role="option"
            aria-selected={position === activeIndex}
            data-testid="search-result"
            onClick={() => choose(position)}
            onMouseMove={() => setActiveIndex(position)}
            className={`cursor-pointer rounded-lg px-3 py-2 ${position === activeIndex ? "bg-muted" : ""}`}
          >
            <div className="flex items-baseline justify-between gap-3">
              <span dir="auto" className="min-w-0 truncate text-sm font-medium">
                <Marked segments={hit.title} />
              </span>
              <span className="shrink-0 text-[11px] text-muted-foreground">
                {new Date(hit.updatedAt).toLocaleDateString(undefined, { month: "short", day: "numeric" })}
              </span>
            </div>
            <p dir="auto" className="mt-0.5 line-clamp-2 text-[13px] leading-5 [overflow-wrap:anywhere] text-muted-foreground">
              <Marked segments={hit.snippet} />
            </p>
          </li>
        ))}
      </ul>
    </ModalDialog>
  );
}
