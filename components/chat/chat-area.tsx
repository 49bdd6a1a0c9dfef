"use client";

import type { ReactNode } from "react";
import { composerPlaceholder } from "@/lib/client/chat-chrome";
import { failureAfterSignIn, type ChatUIMessage } from "@/lib/client/chat-turns";
import type { ConversationInbox } from "@/lib/client/conversation-inbox";
import type { ConversationPersistence } from "@/lib/client/conversation-saver";
import type { MessageTree } from "@/lib/client/message-tree";
import type { SessionCapabilities, SiwcSessionInfo } from "@/lib/client/session-state";
import { ChatSetupProvider, type ChatSetup } from "./chat-context";
import { ChatControls } from "./chat-controls";
import { ChatNotices } from "./chat-notices";
import { ConversationView } from "./conversation-view";
import type { useChatCalls } from "./use-chat-calls";

/** Why a SIWC session's chat has no voice and no pictures, in one line. */
const SIWC_LIMITS_NOTE = "Voice, agent voice and pictures aren't available with Continue with ChatGPT. Answers can be wrong.";

interface ChatAreaProps {
  /** The open conversation as loaded; null until the store has been read. */
  conversation: { id: string; messages: ChatUIMessage[]; tree: MessageTree; draft: string } | null;
  calls: ReturnType<typeof useChatCalls>;
  persistence: ConversationPersistence;
  inbox: ConversationInbox;
  /** What the session may do besides chat: the Picture switch and the voice button ask it. */
  capabilities: SessionCapabilities;
  /** Signed in with ChatGPT (SIWC): plan usage beside the picker, and the line that says what it lacks. */
  siwc: SiwcSessionInfo | null;
  webSearchAvailable: boolean;
  sessionError: string | null;
  onEnablePlanUsage: () => void;
  /** The page is on its way to ChatGPT. */
  redirecting: boolean;
  onNewChatWith: (messages: ChatUIMessage[], draft: string) => void;
  onSignInAgain: () => void;
  onVoice: () => void;
  /** A message went out (the first chat's line about where chats are kept has done its job). */
  onSent?: () => void;
  /** The line about where chats are kept, and what the sync has to say. */
  historyNotice?: ReactNode;
  /** A conversation's first answer arrived (a title may be generated for it). */
  onFirstAnswer: (conversationId: string, messages: ChatUIMessage[]) => void;
}

/** The open conversation, with the chat's controls and notices around its message box. */
export function ChatArea({
  conversation,
  calls,
  persistence,
  inbox,
  capabilities,
  siwc,
  webSearchAvailable,
  sessionError,
  onEnablePlanUsage,
  redirecting,
  onNewChatWith,
  onSignInAgain,
  onVoice,
  onSent,
  historyNotice,
  onFirstAnswer,
}: ChatAreaProps) {
  if (!conversation) {
    return (
      <div role="status" className="flex flex-1 items-center justify-center text-sm text-muted-foreground">
        Loading conversations…
      </div>
    );
  }
  const { modelList, settings, chatOff } = calls;
  const setup: ChatSetup = {
    transport: calls.transport,
    callSettings: calls.callSettings,
    model: { imagesAllowed: settings.imagesAccepted, name: calls.modelName },
    imageMode: capabilities.pictures && calls.imageMode,
    onImageModeUsed: () => calls.setImageMode(false),
    picturesAvailable: capabilities.pictures,
    footnote: siwc ? SIWC_LIMITS_NOTE : undefined,
    placeholder: composerPlaceholder({ chatOff, models: modelList.status, modelCount: modelList.models.length }),
    persistence,
    inbox,
    onLatestFailureChange: calls.onLatestFailure,
    onTurnSignedOut: calls.onTurnSignedOut,
    failureShown: calls.sessionLostHere ? (failure) => failure : failureAfterSignIn,
    onNewChatWith,
    onSignInAgain,
    onSent,
    onFirstAnswer,
  };
  return (
    <ChatSetupProvider value={setup}>
      <ConversationView
        key={conversation.id}
        conversation={conversation}
        controls={
          <ChatControls
            modelList={modelList}
            settings={settings}
            capabilities={capabilities}
            siwc={siwc}
            imageMode={calls.imageMode}
            onImageModeChange={calls.setImageMode}
            webSearchAvailable={webSearchAvailable}
            webSearch={calls.webSearch}
            onWebSearchChange={calls.setWebSearch}
            onVoice={onVoice}
          />
        }
        notices={
          <>
          {historyNotice}
          <ChatNotices
            chatOff={chatOff}
            onEnablePlanUsage={onEnablePlanUsage}
            redirecting={redirecting}
            showFallback={calls.showFallback}
            onDismissFallback={calls.dismissFallback}
            modelList={modelList}
            sessionError={sessionError}
          />
          </>
        }
      />
    </ChatSetupProvider>
  );
}
