"use client";

import { createContext, useContext } from "react";
import type { ChatTransport } from "ai";
import type { ChatErrorInfo } from "@/lib/client/chat-error";
import type { ChatCallSettings } from "@/lib/client/chat-request-options";
import type { ChatUIMessage } from "@/lib/client/chat-turns";
import type { ConversationInbox } from "@/lib/client/conversation-inbox";
import type { ConversationPersistence } from "@/lib/client/conversation-saver";
import type { TurnModel } from "@/lib/client/turn-actions";

/** What the open conversation gets from the screen around it (ChatWorkspace). */
export interface ChatSetup {
  transport: ChatTransport<ChatUIMessage>;
  /** The model settings for the next call, or null while no model can be used. */
  callSettings: ChatCallSettings | null;
  /** The chosen model: whether it takes images, and its name as the picker shows it. */
  model: TurnModel;
  /** The "make a picture" switch is on: the next message asks for an image. */
  imageMode: boolean;
  /** A message went out with the switch on: it has done its job (the switch turns off). */
  onImageModeUsed: () => void;
  /** False where pictures cannot be made (a Sign in with ChatGPT session): `/image …` is sent as text. */
  picturesAvailable: boolean;
  /** The line under the message box (default: answers can be wrong, and whose plan pays). */
  footnote?: string;
  placeholder: string;
  /** Where the conversation's messages and draft are kept. */
  persistence: ConversationPersistence;
  /** Commands for the conversation from outside it: a voice call's transcript, a search result. */
  inbox: ConversationInbox;
  /** The latest turn's failure, or undefined; the header's usage meter reads the usage-limit reset from it. */
  onLatestFailureChange: (failure: ChatErrorInfo | undefined) => void;
  /** A call was just refused as signed out: the login is gone. */
  onTurnSignedOut: () => void;
  /** A failure as it reads now: a "Signed out" turn from before signing in again can be sent (failureAfterSignIn). */
  failureShown: (failure: ChatErrorInfo) => ChatErrorInfo;
  /** The conversation has its first answer (the moment a title is generated). */
  onFirstAnswer: (conversationId: string, messages: ChatUIMessage[]) => void;
  /** Start a fresh conversation holding these messages and this draft (after a 413). */
  onNewChatWith: (messages: ChatUIMessage[], draft: string) => void;
  onSignInAgain: () => void;
  /** A message of the person's went out. */
  onSent?: () => void;
}

const ChatSetupContext = createContext<ChatSetup | null>(null);

export const ChatSetupProvider = ChatSetupContext.Provider;

export function useChatSetup(): ChatSetup {
  const setup = useContext(ChatSetupContext);
  if (!setup) throw new Error("A conversation is shown inside ChatSetupProvider (ChatWorkspace).");
  return setup;
}
