"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { ChatUIMessage } from "@/lib/client/chat-turns";
import type { ConversationInbox } from "@/lib/client/conversation-inbox";
import { treeOfConversation } from "@/lib/client/conversation-record";
import { messagesAfterReload } from "@/lib/client/interrupted-answers";
import { EMPTY_TREE, type MessageTree } from "@/lib/client/message-tree";
import type { ExportedConversation } from "@/lib/client/conversation-export";
import type { ConversationPersistence } from "@/lib/client/conversation-saver";
import { applyConversationChange, NEW_CHAT_DRAFT, type Conversation, type ConversationChange, type ConversationSummary } from "@/lib/client/conversation-store";
import { readStored, removeStored, writeStored } from "@/lib/client/local-preferences";
import { addressShowing, conversationIdIn, metaForSave, openPointerKey, type ConversationMeta } from "@/lib/client/open-conversation";
import { useChangesElsewhere } from "./use-changes-elsewhere";
import { useConversationCopies } from "./use-conversation-copies";
import { useConversationList } from "./use-conversation-list";
import { usePendingDeletions, type PendingDeletion } from "./use-pending-deletions";

/** The conversation on screen. `saved` is false for a new chat until its first message. */
interface ActiveConversation {
  id: string;
  /** The branch shown. */
  messages: ChatUIMessage[];
  /** Every message of the conversation, the other versions included. */
  tree: MessageTree;
  draft: string;
  saved: boolean;
}

/** How the conversations reach the server and the account's other tabs (components/history/use-history-sync). */
interface ConversationSync {
  /** Queue writes for the server. */
  queue: boolean;
  /** After a write: the other tabs read it again, and the server gets it soon. */
  announce(conversationIds: string[]): void;
  /** Hears of conversations changed elsewhere ("all": every one may have); returns the way to stop. */
  subscribe(listener: (changed: string[] | "all") => void): () => void;
}

export interface Conversations {
  /** Null until the store has been read. */
  active: ActiveConversation | null;
  /** Newest first, without those waiting for their Undo window to end. */
  list: ConversationSummary[];
  pendingDeletions: PendingDeletion[];
  /** False when this browser cannot keep conversations (they last as long as the tab). */
  persistent: boolean;
  open(id: string): void;
  startNew(carried?: ChatUIMessage[], draft?: string): void;
  /** Keeps the open conversation's messages and draft (ConversationView saves through it). */
  persistence: ConversationPersistence;
  rename(id: string, title: string): void;
  /** Pins, archives or gives a generated title (organising: see ConversationChange). */
  organise(id: string, change: ConversationChange): void;
  /** Takes the conversation off the list and deletes it when the Undo window has passed. */
  remove(id: string): void;
  undoRemove(id: string): void;
  /** The conversations as kept (messages included), newest first, without those being deleted. */
  readAll(): Promise<Conversation[]>;
  read(id: string): Promise<Conversation | undefined>;
  /** Keeps imported conversations whose id is not here yet; returns how many were added. */
  addConversations(conversations: ExportedConversation[]): Promise<number>;
  /** Deletes this account's conversations and drafts, and the app's preferences, from this browser. */
  forgetThisDevice(): Promise<void>;
}

/** What the open conversation keeps besides its messages, as kept. */
function metaOf({ createdAt, title, titleEdited, pinned, archived }: Conversation): ConversationMeta {
  return { createdAt, title, titleEdited, pinned, archived };
}

/** Shows the conversation in the address bar (a new chat: none); `push` makes it a step Back returns from. */
function showInUrl(id: string | null, mode: "push" | "replace"): void {
  const href = addressShowing(window.location.href, id);
  if (href === window.location.href) return;
  if (mode === "push") window.history.pushState(null, "", href);
  else window.history.replaceState(null, "", href);
}

/**
 * The account's conversations in this browser: which one is open (from the URL, else the one open
 * last), the list for the sidebar, and keeping messages and drafts as they change.
 */
export function useConversations(accountId: string, sync: ConversationSync, inbox: ConversationInbox): Conversations {
  const { store, storeRef, persistent, list, refreshList } = useConversationList(accountId);
  const syncRef = useRef(sync);
  useEffect(() => {
    syncRef.current = sync;
  }, [sync]);
  // Messages taken out for good, removed with the conversation's next save.
  const removalsRef = useRef(new Map<string, string[]>());
  const [active, setActive] = useState<ActiveConversation | null>(null);
  // Callbacks read these, so their identity never changes with the data (the open conversation's saver depends on them).
  const activeRef = useRef<ActiveConversation | null>(null);
  const metaRef = useRef<ConversationMeta | null>(null);

  const show = useCallback((next: ActiveConversation, meta: ConversationMeta | null) => {
    activeRef.current = next;
    metaRef.current = meta;
    setActive(next);
  }, []);

  const load = useCallback(
    async (id: string | null) => {
      const current = storeRef.current;
      if (!current) return;
      const found = id ? await current.get(accountId, id) : undefined;
      if (found) {
        const { tree, path } = treeOfConversation(found);
        show(
          { id: found.id, messages: messagesAfterReload(path), tree, draft: await current.getDraft(accountId, found.id), saved: true },
          metaOf(found),
        );
        writeStored(openPointerKey(accountId), found.id);
        showInUrl(found.id, "replace");
      } else {
        show({ id: crypto.randomUUID(), messages: [], tree: EMPTY_TREE, draft: await current.getDraft(accountId, NEW_CHAT_DRAFT), saved: false }, null);
        showInUrl(null, "replace");
      }
    },
    [accountId, show, storeRef],
  );

  // Once the store is open: the conversation the address names, else the one open last.
  useEffect(() => {
    if (store) void load(conversationIdIn(window.location.search) ?? readStored(openPointerKey(accountId)));
  }, [store, accountId, load]);

  // Back and forward move between conversations too.
  useEffect(() => {
    const onPopState = () => void load(conversationIdIn(window.location.search));
    window.addEventListener("popstate", onPopState);
    return () => window.removeEventListener("popstate", onPopState);
  }, [load]);

  const saveMessages = useCallback(
    (conversationId: string, messages: ChatUIMessage[]) => {
      const current = storeRef.current;
      const conversation = activeRef.current;
      // A save that arrives after another conversation was opened must not land in that one.
      if (!current || !conversation || conversation.id !== conversationId) return;
      const now = Date.now();
      const meta = metaForSave(metaRef.current, messages, now);
      metaRef.current = meta;
      const firstSave = !conversation.saved;
      if (firstSave) {
        activeRef.current = { ...conversation, saved: true };
        setActive((shown) => (shown?.id === conversation.id ? { ...shown, saved: true } : shown));
      }
      const removedIds = removalsRef.current.get(conversationId) ?? [];
      removalsRef.current.delete(conversationId);
      void current
        .saveBranch(accountId, conversation.id, { path: messages, ...meta, removedIds }, { queue: syncRef.current.queue })
        .then(async (kept) => {
          if (firstSave) {
            await current.setDraft(accountId, NEW_CHAT_DRAFT, "");
            writeStored(openPointerKey(accountId), conversation.id);
            showInUrl(conversation.id, "replace");
          }
          if (kept) syncRef.current.announce([conversation.id]);
          await refreshList();
        });
    },
    [accountId, refreshList, storeRef],
  );

  const removeMessages = useCallback((conversationId: string, messageIds: readonly string[]) => {
    const waiting = removalsRef.current.get(conversationId) ?? [];
    removalsRef.current.set(conversationId, [...waiting, ...messageIds]);
  }, []);

  const saveDraft = useCallback(
    (conversationId: string, text: string) => {
      const conversation = activeRef.current;
      if (!conversation || conversation.id !== conversationId) return;
      void storeRef.current?.setDraft(accountId, conversation.saved ? conversation.id : NEW_CHAT_DRAFT, text);
    },
    [accountId, storeRef],
  );

  const open = useCallback(
    (id: string) => {
      if (activeRef.current?.id === id) return;
      showInUrl(id, "push");
      void load(id);
    },
    [load],
  );

  const startNew = useCallback(
    (carried: ChatUIMessage[] = [], draft = "") => {
      removeStored(openPointerKey(accountId));
      showInUrl(null, "push");
      const id = crypto.randomUUID();
      show({ id, messages: carried, tree: EMPTY_TREE, draft, saved: false }, null);
      // A chat that starts with carried messages is worth keeping at once.
      if (carried.length > 0) saveMessages(id, carried);
    },
    [accountId, saveMessages, show],
  );

  const rename = useCallback(
    (id: string, title: string) => {
      const trimmed = title.trim();
      if (!trimmed) return;
      if (activeRef.current?.id === id && metaRef.current) metaRef.current = { ...metaRef.current, title: trimmed, titleEdited: true };
      void storeRef.current?.rename(accountId, id, trimmed, { queue: syncRef.current.queue }).then(() => {
        syncRef.current.announce([id]);
        return refreshList();
      });
    },
    [accountId, refreshList, storeRef],
  );

  // Organising changes the store (queued for the server like a rename) and, for the open conversation, what its next save keeps.
  const organise = useCallback(
    (id: string, change: ConversationChange) => {
      if (activeRef.current?.id === id && metaRef.current) metaRef.current = applyConversationChange(metaRef.current, change);
      void storeRef.current?.update(accountId, id, change, { queue: syncRef.current.queue }).then(() => {
        syncRef.current.announce([id]);
        return refreshList();
      });
    },
    [accountId, refreshList, storeRef],
  );

  const listRef = useRef(list);
  useEffect(() => {
    listRef.current = list;
  }, [list]);
  const deleteNow = useCallback(
    async (id: string) => {
      await storeRef.current?.remove(accountId, id, { queue: syncRef.current.queue });
      syncRef.current.announce([id]);
    },
    [accountId, storeRef],
  );
  const deletions = usePendingDeletions(deleteNow, refreshList);
  const { start: startDeletion, undo: undoRemove, isPending } = deletions;

  const remove = useCallback(
    (id: string) => {
      const title = listRef.current.find((conversation) => conversation.id === id)?.title ?? "Conversation";
      if (startDeletion(id, title) && activeRef.current?.id === id) startNew();
    },
    [startDeletion, startNew],
  );

  const copies = useConversationCopies({ accountId, storeRef, sync: syncRef, refreshList, undoRemove, isPending });

  const persistence = useMemo<ConversationPersistence>(() => ({ saveMessages, removeMessages, saveDraft }), [saveMessages, removeMessages, saveDraft]);

  // What another tab or device changed: the list, and the open conversation (or a new chat when it was deleted there).
  useChangesElsewhere({
    accountId,
    subscribe: sync.subscribe,
    storeRef,
    openId: useCallback(() => (activeRef.current?.saved ? activeRef.current.id : undefined), []),
    refreshList,
    onOpenDeleted: startNew,
    onOpenChanged: useCallback((found: Conversation) => {
      metaRef.current = metaOf(found);
    }, []),
    inbox,
  });

  const pendingDeletions = deletions.pending;
  return {
    active: store ? active : null,
    list: pendingDeletions.length === 0 ? list : list.filter((conversation) => !pendingDeletions.some((pending) => pending.id === conversation.id)),
    pendingDeletions,
    persistent,
    open,
    startNew,
    persistence,
    rename,
    organise,
    remove,
    undoRemove,
    ...copies,
  };
}
