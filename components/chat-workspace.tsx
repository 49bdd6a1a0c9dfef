"use client";

import { useChat } from "@ai-sdk/react";
import { useEffect, useMemo, useRef, useState, useSyncExternalStore, type Ref } from "react";
import { decodeChatError } from "@/lib/client/chat-error";
import { chatRequestOptions } from "@/lib/client/chat-request-options";
import { createProviderProxy } from "@/lib/client/provider-proxy";
import { ProxyChatTransport } from "@/lib/client/proxy-chat-transport";
import { emptyResponseMetadata } from "@/lib/client/response-metadata-store";
import type { SessionUser } from "@/lib/client/session-state";
import { AppHeader } from "./app-header";
import { ghostButton, secondaryButton } from "./button-styles";
import { ChatComposer } from "./chat-composer";
import { ChatEmptyState } from "./chat-empty-state";
import { ChatErrorAlert } from "./chat-error-alert";
import { ChatMessage } from "./chat-message";
import { FallbackNotice } from "./fallback-notice";
import { FastToggle } from "./fast-toggle";
import { ArrowDownIcon, RefreshIcon } from "./icons";
import { ModelPicker } from "./model-picker";
import { ReasoningEffortSelect } from "./reasoning-effort-select";
import { useChatSettings } from "./use-chat-settings";
import { useModelList } from "./use-model-list";
import { useStickToBottom } from "./use-stick-to-bottom";
import { VoiceButton } from "./voice-button";
import { VoiceDialog } from "./voice-dialog";
import { transcriptToMessages } from "@/lib/client/realtime-chat-messages";
import { WaitingIndicator } from "./waiting-indicator";

interface ChatWorkspaceProps {
  user: SessionUser;
  onSignOut: () => void;
  onSignInAgain: () => void;
  /** Called when the server says the session is gone (401 on /models), to re-read it. */
  onSessionLost: () => void;
  signingOut: boolean;
  sessionError: string | null;
  /** The (visually hidden) heading; focus moves here when a screen change would otherwise drop it. */
  headingRef?: Ref<HTMLHeadingElement>;
}

/** The signed-in screen: header, conversation, and the message box with its model controls. */
export function ChatWorkspace({ user, onSignOut, onSignInAgain, onSessionLost, signingOut, sessionError, headingRef }: ChatWorkspaceProps) {
  const provider = useMemo(() => createProviderProxy(), []);
  const transport = useMemo(() => new ProxyChatTransport({ provider }), [provider]);
  const modelList = useModelList(provider, onSessionLost);
  const settings = useChatSettings(modelList.models);
  const metadata = useSyncExternalStore(
    provider.responseMetadata.subscribe,
    provider.responseMetadata.getSnapshot,
    emptyResponseMetadata,
  );
  const { messages, status, error, sendMessage, regenerate, stop, setMessages, clearError } = useChat({ transport });

  const inputRef = useRef<HTMLTextAreaElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  const { atBottom, scrollToBottom } = useStickToBottom(scrollRef, contentRef);
  const [dismissedFallbackReply, setDismissedFallbackReply] = useState(-1);
  const [voiceOpen, setVoiceOpen] = useState(false);

  const busy = status === "submitted" || status === "streaming";
  const chatError = useMemo(() => decodeChatError(error), [error]);
  const lastMessage = messages.at(-1);
  const showFallback = Boolean(metadata.serviceTierFallback) && metadata.replyCount !== dismissedFallbackReply;

  // Ready to type at once on devices with a keyboard; on touch screens this would pop the keyboard up.
  useEffect(() => {
    if (window.matchMedia("(pointer: fine)").matches) inputRef.current?.focus();
  }, []);

  const send = (text: string): boolean => {
    if (!settings.current || busy) return false;
    scrollToBottom();
    void sendMessage({ text }, chatRequestOptions(settings.current));
    return true;
  };

  const retry = () => {
    if (!settings.current || busy) return;
    scrollToBottom();
    void regenerate(chatRequestOptions(settings.current));
  };

  const newChat = async () => {
    await stop();
    setMessages([]);
    clearError();
    provider.responseMetadata.clearFallback();
    inputRef.current?.focus();
  };

  const placeholder =
    modelList.status === "loading"
      ? "Loading models…"
      : modelList.models.length === 0
        ? "No models are available for this account"
        : "Ask anything";

  const retryButton = (
    <button type="button" data-testid="regenerate-button" onClick={retry} disabled={!settings.current} className={`${secondaryButton} h-8`}>
      <RefreshIcon className="size-3.5" />
      {chatError ? "Try again" : "Regenerate"}
    </button>
  );

  return (
    <div className="flex h-dvh flex-col">
      <AppHeader user={user} usage={metadata.usage} onNewChat={newChat} onSignOut={onSignOut} signingOut={signingOut} />

      <main className="flex min-h-0 flex-1 flex-col">
        <h1 ref={headingRef} tabIndex={-1} className="sr-only">
          Chat
        </h1>
        <div ref={scrollRef} className="relative flex-1 overflow-y-auto overscroll-contain">
          <div ref={contentRef} className="mx-auto flex min-h-full w-full max-w-3xl flex-col px-4 pt-6 pb-4 sm:px-6">
            {messages.length === 0 && !chatError ? (
              <ChatEmptyState onPick={send} disabled={!settings.current} />
            ) : (
              <div className="flex flex-col gap-7">
                {messages.map((message) => (
                  <ChatMessage key={message.id} message={message} streaming={busy && message === lastMessage && message.role === "assistant"} />
                ))}
                {status === "submitted" && lastMessage?.role !== "assistant" && (
                  <div className="flex items-center gap-2 text-sm text-muted-foreground">
                    <WaitingIndicator />
                    <span>Thinking…</span>
                  </div>
                )}
                {chatError && !busy ? (
                  <ChatErrorAlert error={chatError} onSignIn={onSignInAgain}>
                    {chatError.code !== "not_authenticated" && messages.length > 0 && retryButton}
                  </ChatErrorAlert>
                ) : (
                  !busy && lastMessage?.role === "assistant" && <div className="-mt-4">{retryButton}</div>
                )}
              </div>
            )}
          </div>
        </div>

        <div className="relative shrink-0 px-3 pb-[max(0.75rem,env(safe-area-inset-bottom))] sm:px-6">
          {!atBottom && messages.length > 0 && (
            <button
              type="button"
              onClick={scrollToBottom}
              aria-label="Scroll to the latest message"
              className="absolute -top-12 left-1/2 inline-flex size-9 -translate-x-1/2 items-center justify-center rounded-full border border-border bg-card text-foreground shadow-md hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
            >
              <ArrowDownIcon className="size-4" />
            </button>
          )}
          <div className="mx-auto flex w-full max-w-3xl flex-col gap-2">
            {showFallback && <FallbackNotice onDismiss={() => setDismissedFallbackReply(metadata.replyCount)} />}
            {modelList.error && (
              <div role="alert" data-testid="models-error" className="flex items-center justify-between gap-3 rounded-xl bg-destructive-soft px-3.5 py-2 text-[13px] text-foreground">
                <span>{modelList.error}</span>
                <button type="button" onClick={modelList.retry} className={`${ghostButton} h-7 text-foreground`}>
                  Retry
                </button>
              </div>
            )}
            {sessionError && (
              <p role="alert" className="rounded-xl bg-destructive-soft px-3.5 py-2 text-[13px] text-foreground">
                {sessionError}
              </p>
            )}
            <ChatComposer
              inputRef={inputRef}
              onSend={send}
              onStop={() => void stop()}
              streaming={busy}
              canSend={Boolean(settings.current)}
              placeholder={placeholder}
              controls={
                <>
                  <ModelPicker
                    models={modelList.models}
                    value={settings.model}
                    onChange={settings.setModel}
                    loading={modelList.status === "loading"}
                  />
                  <ReasoningEffortSelect value={settings.reasoningEffort} onChange={settings.setReasoningEffort} />
                  <FastToggle checked={settings.fast} onChange={settings.setFast} />
                  <VoiceButton onClick={() => setVoiceOpen(true)} />
                </>
              }
            />
            <p className="hidden text-center text-[11px] text-muted-foreground sm:block">
              Answers can be wrong. Messages count against your ChatGPT plan.
            </p>
          </div>
          <p role="status" aria-live="polite" className="sr-only">
            {busy ? "Answering…" : status === "ready" && lastMessage?.role === "assistant" ? "Answer complete." : ""}
          </p>
        </div>
      </main>
      {voiceOpen && (
        <VoiceDialog
          onClose={() => setVoiceOpen(false)}
          onTranscript={(lines) => setMessages((current) => [...current, ...transcriptToMessages(lines, String(Date.now()))])}
          onSignInAgain={onSignInAgain}
        />
      )}
    </div>
  );
}
