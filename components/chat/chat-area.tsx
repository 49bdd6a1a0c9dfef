"use client";

import { composerPlaceholder } from "@/lib/client/chat-chrome";
import { failureAfterSignIn, type ChatUIMessage } from "@/lib/client/chat-turns";
import type { ConversationInbox } from "@/lib/client/conversation-inbox";
import type { ConversationPersistence } from "@/lib/client/conversation-saver";
import type { SiwcSessionInfo } from "@/lib/client/session-state";
import { ChatSetupProvider, type ChatSetup } from "./chat-context";
import { ChatControls } from "./chat-controls";
import { ChatNotices } from "./chat-notices";
import { ConversationView } from "./conversation-view";
import type { useChatCalls } from "./use-chat-calls";

/** Why a SIWC session's chat has no voice and no pictures, in one line. */
const SIWC_LIMITS_NOTE = "Voice, agent voice and pictures aren't available with Continue with ChatGPT. Answers can be wrong.";

interface ChatAreaProps {
  /** The open conversation as loaded; null until the store has been read. */
  conversation: { id: string; messages: ChatUIMessage[]; draft: string } | null;
  calls: ReturnType<typeof useChatCalls>;
  persistence: ConversationPersistence;
  inbox: ConversationInbox;
  /** Signed in with ChatGPT (SIWC): plan usage beside the picker; no voice, no pictures. */
  siwc: SiwcSessionInfo | null;
  webSearchAvailable: boolean;
  sessionError: string | null;
  onEnablePlanUsage: () => void;
  /** The page is on its way to ChatGPT. */
  redirecting: boolean;
  onNewChatWith: (messages: ChatUIMessage[], draft: string) => void;
  onSignInAgain: () => void;
  onVoice: () => void;
  /** A conversation's first answer arrived (a title may be generated for it). */
  onFirstAnswer: (conversationId: string, messages: ChatUIMessage[]) => void;
}

/** The open conversation, with the chat's controls and notices around its message box. */
export function ChatArea({
  conversation,
  calls,
  persistence,
  inbox,
  siwc,
  webSearchAvailable,
  sessionError,
  onEnablePlanUsage,
  redirecting,
  onNewChatWith,
  onSignInAgain,
  onVoice,
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
    imageMode: !siwc && calls.imageMode,
    onImageModeUsed: () => calls.setImageMode(false),
    picturesAvailable: !siwc,
    footnote: siwc ? SIWC_LIMITS_NOTE : undefined,
    placeholder: composerPlaceholder({ chatOff, models: modelList.status, modelCount: modelList.models.length }),
    persistence,
    inbox,
    onLatestFailureChange: calls.onLatestFailure,
    onTurnSignedOut: calls.onTurnSignedOut,
    failureShown: calls.sessionLostHere ? (failure) => failure : failureAfterSignIn,
    onNewChatWith,
    onSignInAgain,
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
          <ChatNotices
            chatOff={chatOff}
            onEnablePlanUsage={onEnablePlanUsage}
            redirecting={redirecting}
            showFallback={calls.showFallback}
            onDismissFallback={calls.dismissFallback}
            modelList={modelList}
            sessionError={sessionError}
          />
        }
      />
    </ChatSetupProvider>
  );
}
