"use client";

import { useEffect, useRef } from "react";
import type { ChatStatus } from "ai";
import type { ChatUIMessage } from "@/lib/client/chat-turns";
import { hasAnswer } from "@/lib/client/open-conversation";

/**
 * Calls `onFirstAnswer` once the open conversation has its first answer, settled (a turn's, or a
 * voice call's transcript): not for a conversation opened with answers, and again only after they
 * are all gone (an edited first question, a removed failed turn).
 */
export function useFirstAnswer(messages: ChatUIMessage[], status: ChatStatus, onFirstAnswer: (messages: ChatUIMessage[]) => void): void {
  const answeredRef = useRef(hasAnswer(messages));
  useEffect(() => {
    if (!hasAnswer(messages)) {
      answeredRef.current = false;
      return;
    }
    if (answeredRef.current || status === "submitted" || status === "streaming") return;
    answeredRef.current = true;
    onFirstAnswer(messages);
  }, [messages, status, onFirstAnswer]);
}
