"use client";

import { useChat } from "@ai-sdk/react";
import { useEffect, useRef, useState } from "react";
import { decodeChatError, type ChatErrorInfo } from "@/lib/client/chat-error";
import { chatRequestOptions } from "@/lib/client/chat-request-options";
import { failureOf, type ChatUIMessage } from "@/lib/client/chat-turns";
import { failureShownApart, removedBy, settleTurn, type AnswerCall, type TurnPlan } from "@/lib/client/turn-actions";
import { useChatSetup } from "./chat-context";

interface ConversationTurns {
  messages: ChatUIMessage[];
  status: ReturnType<typeof useChat<ChatUIMessage>>["status"];
  /** A call is starting, or its answer streaming. */
  busy: boolean;
  /** The latest turn's failure: marked on its question, or said apart after a failed regenerate or continue. */
  latestFailure: ChatErrorInfo | undefined;
  /** A failed regenerate or continue, said once under the answer it left as it was. */
  answerCallFailure: ChatErrorInfo | undefined;
  /**
   * Shows a turn action's list and streams the answer into it. False (and nothing happens) without
   * a plan or a usable model, or while another call is starting or running.
   */
  start: (plan: TurnPlan | undefined) => boolean;
  /** Changes the list without a call (a failed turn removed, another answer version shown, a voice transcript added). */
  setMessages: (update: ChatUIMessage[] | ((messages: ChatUIMessage[]) => ChatUIMessage[])) => void;
  stop: () => Promise<void>;
}

/**
 * One conversation's turns over useChat: each call starts from a turn action's plan
 * (lib/client/turn-actions), and how it ends is settled there too (settleTurn).
 */
export function useConversationTurns(conversationId: string, initialMessages: ChatUIMessage[], onStart: () => void): ConversationTurns {
  const { transport, callSettings, onLatestFailureChange, onTurnSignedOut, persistence } = useChatSetup();
  // The error is read in onError and applied in onFinish, with the answer call it ended.
  const pendingFailureRef = useRef<ChatErrorInfo | undefined>(undefined);
  const answerCallRef = useRef<AnswerCall | undefined>(undefined);
  const [answerCallFailure, setAnswerCallFailure] = useState<ChatErrorInfo | undefined>(undefined);
  const setMessagesRef = useRef<ConversationTurns["setMessages"]>(() => {});
  const onTurnSignedOutRef = useRef(onTurnSignedOut);
  const { messages, status, sendMessage, stop, setMessages } = useChat<ChatUIMessage>({
    id: conversationId,
    messages: initialMessages,
    transport,
    onError: (caught) => {
      pendingFailureRef.current = decodeChatError(caught);
    },
    onFinish: ({ isError, isAbort }) => {
      const outcome = { answerCall: answerCallRef.current, isError, isAbort, failure: pendingFailureRef.current };
      pendingFailureRef.current = undefined;
      if (outcome.failure?.code === "not_authenticated") onTurnSignedOutRef.current();
      answerCallRef.current = undefined;
      const settle = settleTurn(outcome);
      if (settle) {
        setMessagesRef.current((current) => {
          const settled = settle(current);
          // What the end of the call dropped (an empty answer, a failed new version) is gone for good.
          const removed = removedBy(current, settled);
          if (removed.length > 0) persistence.removeMessages(conversationId, removed);
          return settled;
        });
      }
      const apart = failureShownApart(outcome);
      if (apart) setAnswerCallFailure(apart);
    },
  });
  useEffect(() => {
    setMessagesRef.current = setMessages;
    onTurnSignedOutRef.current = onTurnSignedOut;
  }, [setMessages, onTurnSignedOut]);

  // Set from the moment a turn starts until its call settles: a second submit in between (a double
  // click, Enter pressed twice) is ignored even before React has re-rendered with the new status.
  const startingRef = useRef(false);
  const busy = status === "submitted" || status === "streaming";
  const lastUser = messages.findLast((message) => message.role === "user");
  const latestFailure = (lastUser ? failureOf(lastUser) : undefined) ?? answerCallFailure;

  useEffect(() => {
    onLatestFailureChange(latestFailure);
  }, [latestFailure, onLatestFailureChange]);

  const start = (plan: TurnPlan | undefined): boolean => {
    if (!plan || !callSettings || busy || startingRef.current) return false;
    startingRef.current = true;
    setAnswerCallFailure(undefined);
    onStart();
    answerCallRef.current = plan.answerCall;
    if (plan.removed.length > 0) persistence.removeMessages(conversationId, plan.removed.map((message) => message.id));
    setMessages(plan.messages);
    const { generateImage, leaveOutImages, continueAnswer } = plan;
    // Without a new message, the call answers the last one: the new question, or the emptied answer.
    void sendMessage(undefined, chatRequestOptions({ ...callSettings, generateImage, leaveOutImages, continueAnswer })).finally(() => {
      startingRef.current = false;
    });
    return true;
  };

  return { messages, status, busy, latestFailure, answerCallFailure, start, setMessages, stop };
}
