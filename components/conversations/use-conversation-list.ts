"use client";

import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import { openConversationStore, type ConversationStore, type ConversationSummary } from "@/lib/client/conversation-store";

interface ConversationList {
  /** Null until the store is open. */
  store: ConversationStore | null;
  /** The same, for callbacks that must not change when it opens. */
  storeRef: RefObject<ConversationStore | null>;
  /** False when this browser cannot keep conversations (they last as long as the tab). */
  persistent: boolean;
  /** The account's conversations, newest first. */
  list: ConversationSummary[];
  /** Reads the list again (after a save, rename, delete or import). */
  refreshList: () => Promise<void>;
}

/** This browser's conversation store, opened once, and the account's list of conversations from it. */
export function useConversationList(accountId: string): ConversationList {
  const [store, setStore] = useState<ConversationStore | null>(null);
  const [persistent, setPersistent] = useState(true);
  const [list, setList] = useState<ConversationSummary[]>([]);
  const storeRef = useRef<ConversationStore | null>(null);

  const refreshList = useCallback(async () => {
    const current = storeRef.current;
    if (current) setList(await current.list(accountId));
  }, [accountId]);

  useEffect(() => {
    let cancelled = false;
    void openConversationStore(() => setPersistent(false)).then(async (opened) => {
      if (cancelled) return;
      storeRef.current = opened;
      setStore(opened);
      setPersistent(opened.persistent);
      await refreshList();
    });
    return () => {
      cancelled = true;
    };
  }, [refreshList]);

  return { store, storeRef, persistent, list, refreshList };
}
