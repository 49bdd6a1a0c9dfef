"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { textOf, type ChatUIMessage } from "@/lib/client/chat-turns";
import { messagesAfterReload } from "@/lib/client/interrupted-answers";
import type { ExportedConversation } from "@/lib/client/conversation-export";
import {
  NEW_CHAT_DRAFT,
  openConversationStore,
  titleFromText,
  type Conversation,
  type ConversationStore,
  type ConversationSummary,
} from "@/lib/client/conversation-store";
import type { ConversationPersistence } from "@/lib/client/conversation-saver";
import { clearAppStorage, readStored, removeStored, writeStored } from "@/lib/client/local-preferences";

/** The conversation on screen. `saved` is false for a new chat until its first message. */
interface ActiveConversation {
  id: string;
  messages: ChatUIMessage[];
  draft: string;
  saved: boolean;
}

interface ConversationMeta {
  createdAt: number;
  title: string;
  titleEdited: boolean;
}

/** A conversation deleted from the list but still kept until its Undo window ends. */
export interface PendingDeletion {
  id: string;
  title: string;
}

/** How long a deleted conversation can be taken back; it stays in the browser until then (a reload keeps it). */
const UNDO_WINDOW_MS = 10_000;

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

const URL_PARAM = "c";

function openPointerKey(accountId: string): string {
  return `lwc:open-conversation:${accountId}`;
}

function conversationIdInUrl(): string | null {
  return new URLSearchParams(window.location.search).get(URL_PARAM);
}

/** `/?c=<id>` for a saved conversation, the bare page for a new chat; other query parameters stay. */
function showInUrl(id: string | null, mode: "push" | "replace"): void {
  const url = new URL(window.location.href);
  if (id) url.searchParams.set(URL_PARAM, id);
  else url.searchParams.delete(URL_PARAM);
  if (url.href === window.location.href) return;
  if (mode === "push") window.history.pushState(null, "", url);
  else window.history.replaceState(null, "", url);
}

function titleFor(messages: ChatUIMessage[]): string {
  const first = messages.find((message) => message.role === "user");
  return titleFromText(first ? textOf(first) : "");
}

/**
 * The account's conversations in this browser: which one is open (from the URL, else the one open
 * last), the list for the sidebar, and keeping messages and drafts as they change.
 */
export function useConversations(accountId: string): Conversations {
  const [store, setStore] = useState<ConversationStore | null>(null);
  const [persistent, setPersistent] = useState(true);
  const [list, setList] = useState<ConversationSummary[]>([]);
  const [active, setActive] = useState<ActiveConversation | null>(null);
  // Callbacks read these, so their identity never changes with the data (ConversationView's effects depend on them).
  const activeRef = useRef<ActiveConversation | null>(null);
  const metaRef = useRef<ConversationMeta | null>(null);
  const storeRef = useRef<ConversationStore | null>(null);

  const show = useCallback((next: ActiveConversation, meta: ConversationMeta | null) => {
    activeRef.current = next;
    metaRef.current = meta;
    setActive(next);
  }, []);

  const refreshList = useCallback(async () => {
    const current = storeRef.current;
    if (current) setList(await current.list(accountId));
  }, [accountId]);

  const load = useCallback(
    async (id: string | null) => {
      const current = storeRef.current;
      if (!current) return;
      const found = id ? await current.get(accountId, id) : undefined;
      if (found) {
        show(
          { id: found.id, messages: messagesAfterReload(found.messages), draft: await current.getDraft(accountId, found.id), saved: true },
          { createdAt: found.createdAt, title: found.title, titleEdited: found.titleEdited },
        );
        writeStored(openPointerKey(accountId), found.id);
        showInUrl(found.id, "replace");
      } else {
        show({ id: crypto.randomUUID(), messages: [], draft: await current.getDraft(accountId, NEW_CHAT_DRAFT), saved: false }, null);
        showInUrl(null, "replace");
      }
    },
    [accountId, show],
  );

  useEffect(() => {
    let cancelled = false;
    void openConversationStore(() => setPersistent(false)).then(async (opened) => {
      if (cancelled) return;
      storeRef.current = opened;
      setStore(opened);
      setPersistent(opened.persistent);
      await load(conversationIdInUrl() ?? readStored(openPointerKey(accountId)));
      await refreshList();
    });
    return () => {
      cancelled = true;
    };
  }, [accountId, load, refreshList]);

  // Back and forward move between conversations too.
  useEffect(() => {
    const onPopState = () => void load(conversationIdInUrl());
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
      const meta = metaRef.current ?? { createdAt: now, title: titleFor(messages), titleEdited: false };
      const title = meta.titleEdited ? meta.title : titleFor(messages);
      metaRef.current = { ...meta, title };
      const firstSave = !conversation.saved;
      if (firstSave) {
        activeRef.current = { ...conversation, saved: true };
        setActive((shown) => (shown?.id === conversation.id ? { ...shown, saved: true } : shown));
      }
      void current
        .save({ id: conversation.id, accountId, title, titleEdited: meta.titleEdited, createdAt: meta.createdAt, updatedAt: now, messages })
        .then(async () => {
          if (firstSave) {
            await current.setDraft(accountId, NEW_CHAT_DRAFT, "");
            writeStored(openPointerKey(accountId), conversation.id);
            showInUrl(conversation.id, "replace");
          }
          await refreshList();
        });
    },
    [accountId, refreshList],
  );

  const saveDraft = useCallback(
    (conversationId: string, text: string) => {
      const conversation = activeRef.current;
      if (!conversation || conversation.id !== conversationId) return;
      void storeRef.current?.setDraft(accountId, conversation.saved ? conversation.id : NEW_CHAT_DRAFT, text);
    },
    [accountId],
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
      show({ id, messages: carried, draft, saved: false }, null);
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
      void storeRef.current?.rename(accountId, id, trimmed).then(refreshList);
    },
    [accountId, refreshList],
  );

  const listRef = useRef(list);
  useEffect(() => {
    listRef.current = list;
  }, [list]);
  const [pendingDeletions, setPendingDeletions] = useState<PendingDeletion[]>([]);
  const deletionTimersRef = useRef(new Map<string, ReturnType<typeof setTimeout>>());

  const remove = useCallback(
    (id: string) => {
      const timers = deletionTimersRef.current;
      if (timers.has(id)) return;
      const title = listRef.current.find((conversation) => conversation.id === id)?.title ?? "Conversation";
      timers.set(
        id,
        setTimeout(() => {
          timers.delete(id);
          setPendingDeletions((current) => current.filter((pending) => pending.id !== id));
          void storeRef.current?.remove(accountId, id).then(refreshList);
        }, UNDO_WINDOW_MS),
      );
      setPendingDeletions((current) => [...current, { id, title }]);
      if (activeRef.current?.id === id) startNew();
    },
    [accountId, refreshList, startNew],
  );

  const undoRemove = useCallback((id: string) => {
    const timer = deletionTimersRef.current.get(id);
    if (timer === undefined) return;
    clearTimeout(timer);
    deletionTimersRef.current.delete(id);
    setPendingDeletions((current) => current.filter((pending) => pending.id !== id));
  }, []);

  // Leaving the chat (signing out, another account) carries out the deletions still waiting.
  useEffect(() => {
    const timers = deletionTimersRef.current;
    return () => {
      for (const [id, timer] of timers) {
        clearTimeout(timer);
        void storeRef.current?.remove(accountId, id);
      }
      timers.clear();
    };
  }, [accountId]);

  const readAll = useCallback(async () => {
    const all = (await storeRef.current?.all(accountId)) ?? [];
    return all.filter((conversation) => !deletionTimersRef.current.has(conversation.id));
  }, [accountId]);

  const read = useCallback(async (id: string) => storeRef.current?.get(accountId, id), [accountId]);

  const addConversations = useCallback(
    async (incoming: ExportedConversation[]) => {
      const current = storeRef.current;
      if (!current) return 0;
      // A file that holds a conversation being deleted asks to keep it.
      for (const conversation of incoming) undoRemove(conversation.id);
      const added = await current.addMissing(
        accountId,
        incoming.map((conversation) => ({ ...conversation, accountId })),
      );
      await refreshList();
      return added.length;
    },
    [accountId, refreshList, undoRemove],
  );

  const persistence = useMemo<ConversationPersistence>(() => ({ saveMessages, saveDraft }), [saveMessages, saveDraft]);

  const forgetThisDevice = useCallback(async () => {
    await storeRef.current?.forgetAccount(accountId);
    clearAppStorage();
  }, [accountId]);

  return {
    active: store ? active : null,
    list: pendingDeletions.length === 0 ? list : list.filter((conversation) => !pendingDeletions.some((pending) => pending.id === conversation.id)),
    pendingDeletions,
    persistent,
    open,
    startNew,
    persistence,
    rename,
    remove,
    undoRemove,
    readAll,
    read,
    addConversations,
    forgetThisDevice,
  };
}
