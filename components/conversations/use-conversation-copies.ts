"use client";

import { useCallback, type RefObject } from "react";
import type { ExportedConversation } from "@/lib/client/conversation-export";
import type { Conversation, ConversationStore } from "@/lib/client/conversation-store";
import { clearAppStorage } from "@/lib/client/local-preferences";

interface CopiesOptions {
  accountId: string;
  storeRef: RefObject<ConversationStore | null>;
  /** Whether writes are queued for the server, and how to tell the other tabs and the server. */
  sync: RefObject<{ queue: boolean; announce(conversationIds: string[]): void }>;
  refreshList: () => Promise<void>;
  /** Takes back a deletion still in its Undo window. */
  undoRemove: (id: string) => void;
  isPending: (id: string) => boolean;
}

/** The account's conversations whole, for export and search; an import; and forgetting this device. */
export function useConversationCopies({ accountId, storeRef, sync, refreshList, undoRemove, isPending }: CopiesOptions) {
  const readAll = useCallback(async (): Promise<Conversation[]> => {
    const all = (await storeRef.current?.all(accountId)) ?? [];
    return all.filter((conversation) => !isPending(conversation.id));
  }, [accountId, isPending, storeRef]);

  const read = useCallback(async (id: string) => storeRef.current?.get(accountId, id), [accountId, storeRef]);

  const addConversations = useCallback(
    async (incoming: ExportedConversation[]) => {
      const current = storeRef.current;
      if (!current) return 0;
      // A file that holds a conversation being deleted asks to keep it.
      for (const conversation of incoming) undoRemove(conversation.id);
      const added = await current.addMissing(
        accountId,
        incoming.map((conversation) => ({ ...conversation, accountId })),
        { queue: sync.current.queue },
      );
      sync.current.announce(added);
      await refreshList();
      return added.length;
    },
    [accountId, refreshList, undoRemove, storeRef, sync],
  );

  const forgetThisDevice = useCallback(async () => {
    await storeRef.current?.forgetAccount(accountId);
    clearAppStorage();
  }, [accountId, storeRef]);

  return { readAll, read, addConversations, forgetThisDevice };
}
