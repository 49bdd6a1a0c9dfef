"use client";

import { useEffect } from "react";
import type { ConversationCommand } from "@/lib/client/conversation-inbox";
import { useChatSetup } from "./chat-context";

/**
 * Carries out the commands the screen posts for this conversation (a finished voice call's
 * transcript, a search result), each once: those waiting when it opens, then each as it is posted.
 */
export function useConversationCommands(conversationId: string, run: (command: ConversationCommand) => void): void {
  const { inbox } = useChatSetup();
  useEffect(() => {
    const takeWaiting = () => {
      for (const command of inbox.take(conversationId)) run(command);
    };
    takeWaiting();
    return inbox.subscribe(takeWaiting);
  }, [inbox, conversationId, run]);
}
