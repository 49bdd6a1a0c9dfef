"use client";

import { useEffect, type RefObject } from "react";
import type { ConversationInbox } from "@/lib/client/conversation-inbox";
import { treeOfConversation } from "@/lib/client/conversation-record";
import type { Conversation, ConversationStore } from "@/lib/client/conversation-store";

interface ChangesElsewhere {
  accountId: string;
  /** Hears of conversations another tab or device changed ("all": every one may have). */
  subscribe: (listener: (changed: string[] | "all") => void) => () => void;
  storeRef: RefObject<ConversationStore | null>;
  /** The open conversation's id, once it is kept (a new chat has nothing to take from elsewhere). */
  openId: () => string | undefined;
  refreshList: () => Promise<void>;
  /** The open conversation was deleted elsewhere. */
  onOpenDeleted: () => void;
  /** The open conversation as kept now. */
  onOpenChanged: (conversation: Conversation) => void;
  inbox: ConversationInbox;
}

/**
 * What another tab or device changed reaches this tab: the list is read again, and the open
 * conversation takes the kept copy (through the inbox, lib/client/remote-branch), or gives way to a
 * new chat when it was deleted there.
 */
export function useChangesElsewhere({ accountId, subscribe, storeRef, openId, refreshList, onOpenDeleted, onOpenChanged, inbox }: ChangesElsewhere): void {
  useEffect(
    () =>
      subscribe((changed) => {
        void refreshList();
        const id = openId();
        const store = storeRef.current;
        if (!id || !store || (changed !== "all" && !changed.includes(id))) return;
        void store.get(accountId, id).then((found) => {
          if (openId() !== id) return;
          if (!found) return onOpenDeleted();
          onOpenChanged(found);
          inbox.post(id, { type: "remote", tree: treeOfConversation(found).tree });
        });
      }),
    [accountId, subscribe, storeRef, openId, refreshList, onOpenDeleted, onOpenChanged, inbox],
  );
}
