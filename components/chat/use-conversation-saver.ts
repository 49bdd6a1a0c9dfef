"use client";

import { useEffect, useRef, useState } from "react";
import type { ChatStatus } from "ai";
import type { ChatUIMessage } from "@/lib/client/chat-turns";
import { createConversationSaver, type ConversationPersistence, type ConversationSaver } from "@/lib/client/conversation-saver";

/**
 * Keeps the open conversation as it changes (createConversationSaver says when): its messages,
 * the answer so far while one streams (also when the tab closes), and the draft. `adopt` says the
 * messages about to be shown came from the kept copy (nothing to save).
 */
export function useConversationSaver(
  persistence: ConversationPersistence,
  conversationId: string,
  current: { messages: ChatUIMessage[]; status: ChatStatus; draft: string },
): { adopt: (messages: ChatUIMessage[]) => void } {
  const { messages, status, draft } = current;
  // What was opened, to tell a change from merely opening the conversation.
  const [loaded] = useState(() => ({ messages, draft }));
  const saverRef = useRef<ConversationSaver | null>(null);

  useEffect(() => {
    const saver = createConversationSaver(persistence, conversationId, loaded);
    saverRef.current = saver;
    // A closing tab keeps the latest text now rather than at the end of the interval.
    const onPageHide = () => saver.flush();
    window.addEventListener("pagehide", onPageHide);
    return () => {
      window.removeEventListener("pagehide", onPageHide);
      saver.close();
      saverRef.current = null;
    };
  }, [persistence, conversationId, loaded]);

  useEffect(() => {
    saverRef.current?.messagesChanged(messages, status);
  }, [messages, status]);

  useEffect(() => {
    saverRef.current?.draftChanged(draft);
  }, [draft]);

  return { adopt: (adopted) => saverRef.current?.adopt(adopted) };
}
