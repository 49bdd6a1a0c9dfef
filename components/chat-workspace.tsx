"use client";

import { useChat } from "@ai-sdk/react";
import { useEffect, useMemo, useRef, useState, useSyncExternalStore, type Ref } from "react";
import { decodeChatError, type ChatErrorInfo } from "@/lib/client/chat-error";
import { chatRequestOptions } from "@/lib/client/chat-request-options";
import {
  failureOf,
  isFailedMessage,
  lastCompletedExchange,
  markLastTurnFailed,
  removeTurn,
  textOf,
  type ChatUIMessage,
} from "@/lib/client/chat-turns";
import { createProviderProxy } from "@/lib/client/provider-proxy";
import { ProxyChatTransport } from "@/lib/client/proxy-chat-transport";
import { emptyResponseMetadata } from "@/lib/client/response-metadata-store";
import type { SessionUser } from "@/lib/client/session-state";
import { AppHeader } from "./app-header";
import { ghostButton, secondaryButton } from "./button-styles";
import { ChatComposer } from "./chat-composer";
import { ChatEmptyState } from "./chat-empty-state";
import { AssistantMessage } from "./chat-message";
import { FailedTurn } from "./failed-turn";
import { FallbackNotice } from "./fallback-notice";
import { FastToggle } from "./fast-toggle";
import { ArrowDownIcon, RefreshIcon } from "./icons";
import { ModelPicker } from "./model-picker";
import { ReasoningEffortSelect } from "./reasoning-effort-select";
import { useChatSettings } from "./use-chat-settings";
import { useModelList } from "./use-model-list";
import { useStickToBottom } from "./use-stick-to-bottom";
import { UserMessage } from "./user-message";
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
  // A failed call marks its turn (see chat-turns): the error is read in onError, applied in onFinish.
  const pendingFailureRef = useRef<ChatErrorInfo | null>(null);
  const setMessagesRef = useRef<(update: (messages: ChatUIMessage[]) => ChatUIMessage[]) => void>(() => {});
  const { messages, status, sendMessage, regenerate, stop, setMessages } = useChat<ChatUIMessage>({
    transport,
    onError: (caught) => {
      pendingFailureRef.current = decodeChatError(caught) ?? null;
    },
    onFinish: ({ isError }) => {
      const failure = pendingFailureRef.current;
      pendingFailureRef.current = null;
      if (isError && failure) setMessagesRef.current((current) => markLastTurnFailed(current, failure));
    },
  });
  useEffect(() => {
    setMessagesRef.current = setMessages;
  }, [setMessages]);

  const inputRef = useRef<HTMLTextAreaElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  const { atBottom, scrollToBottom } = useStickToBottom(scrollRef, contentRef);
  const [dismissedFallbackReply, setDismissedFallbackReply] = useState(-1);
  const [draft, setDraft] = useState("");
  const [editingId, setEditingId] = useState<string | null>(null);
  // Set from the moment a turn starts until its call settles: a second submit in between (a double
  // click, Enter pressed twice) is ignored even before React has re-rendered with the new status.
  const startingRef = useRef(false);

  const busy = status === "submitted" || status === "streaming";
  const lastMessage = messages.at(-1);
  const lastUser = messages.findLast((message) => message.role === "user");
  const latestFailure = lastUser ? failureOf(lastUser) : undefined;
  const showFallback = Boolean(metadata.serviceTierFallback) && metadata.replyCount !== dismissedFallbackReply;
  // One source of truth for the reset time: while the latest turn failed on the usage limit, the
  // meter shows the reset that failure reported, the same one the alert shows.
  const limitResetsAt = latestFailure?.code === "usage_limit" ? latestFailure.usageLimit?.resetsAt : undefined;
  const usage =
    limitResetsAt === undefined
      ? metadata.usage
      : { ...metadata.usage, primary: { usedPercent: 100, windowMinutes: metadata.usage?.primary?.windowMinutes, resetsAt: limitResetsAt } };

  // Ready to type at once on devices with a keyboard; on touch screens this would pop the keyboard up.
  useEffect(() => {
    if (window.matchMedia("(pointer: fine)").matches) inputRef.current?.focus();
  }, []);

  /** Starts one call at a time; returns false (and does nothing) while another is starting or running. */
  const startTurn = (call: (options: ReturnType<typeof chatRequestOptions>) => Promise<void>): boolean => {
    if (!settings.current || busy || startingRef.current) return false;
    startingRef.current = true;
    scrollToBottom();
    void call(chatRequestOptions(settings.current)).finally(() => {
      startingRef.current = false;
    });
    return true;
  };

  const send = (text: string): boolean => startTurn((options) => sendMessage({ text }, options));

  const regenerateLast = () => {
    startTurn((options) => regenerate(options));
  };

  /** Sends a failed turn again, as the newest turn; the failed copy goes. */
  const retryTurn = (message: ChatUIMessage) => {
    startTurn((options) => {
      setMessages(removeTurn(messages, message.id));
      return sendMessage({ parts: message.parts }, options);
    });
  };

  /** Replaces a user message with edited text and answers it again; everything after it goes. */
  const submitEdit = (message: ChatUIMessage, text: string) => {
    const started = startTurn((options) => {
      const otherParts = message.parts.filter((part) => part.type !== "text");
      return sendMessage({ parts: [...otherParts, { type: "text", text }], messageId: message.id }, options);
    });
    if (started) setEditingId(null);
  };

  const removeFailedTurn = (message: ChatUIMessage) => {
    setMessages(removeTurn(messages, message.id));
    if (editingId === message.id) setEditingId(null);
  };

  /** A failed turn's text goes back into the message box (the turn itself goes), later turns stay. */
  const editFailedTurn = (message: ChatUIMessage) => {
    removeFailedTurn(message);
    setDraft(textOf(message));
    inputRef.current?.focus();
  };

  const newChat = async (carried: ChatUIMessage[] = []) => {
    await stop();
    setMessages(carried);
    setEditingId(null);
    provider.responseMetadata.clearFallback();
    inputRef.current?.focus();
  };

  /** After a 413: a fresh chat with the last good exchange, and the failed text back in the box. */
  const newChatWithLastTurn = (failed: ChatUIMessage) => {
    void newChat(lastCompletedExchange(messages));
    setDraft(textOf(failed));
  };

  const placeholder =
    modelList.status === "loading"
      ? "Loading models…"
      : modelList.models.length === 0
        ? "No models are available for this account"
        : "Ask anything";

  const regenerateButton = (
    <button type="button" data-testid="regenerate-button" onClick={regenerateLast} disabled={!settings.current} className={`${secondaryButton} h-8`}>
      <RefreshIcon className="size-3.5" />
      Regenerate
    </button>
  );

  /** The failure row after a failed turn: after its partial answer when there is one. */
  const failureAfter = (message: ChatUIMessage, index: number) => {
    const next = messages[index + 1];
    if (next && next.role === "assistant" && isFailedMessage(next)) return null;
    const user = message.role === "user" ? message : messages.slice(0, index).findLast((candidate) => candidate.role === "user");
    const failure = user ? failureOf(user) : undefined;
    if (!user || !failure) return null;
    return (
      <FailedTurn
        key={`${user.id}-failure`}
        failure={failure}
        latest={user === lastUser}
        enabled={!busy && Boolean(settings.current)}
        onRetry={() => retryTurn(user)}
        onEdit={() => editFailedTurn(user)}
        onRemove={() => removeFailedTurn(user)}
        onSignIn={onSignInAgain}
        onNewChatWithLastTurn={() => newChatWithLastTurn(user)}
      />
    );
  };

  return (
    <div className="flex h-dvh flex-col">
      <AppHeader user={user} usage={usage} onNewChat={() => void newChat()} onSignOut={onSignOut} signingOut={signingOut} />

      <main className="flex min-h-0 flex-1 flex-col">
        <h1 ref={headingRef} tabIndex={-1} className="sr-only">
          Chat
        </h1>
        <div ref={scrollRef} className="relative flex-1 overflow-y-auto overscroll-contain">
          <div ref={contentRef} className="mx-auto flex min-h-full w-full max-w-3xl flex-col px-4 pt-6 pb-4 sm:px-6">
            {messages.length === 0 ? (
              <ChatEmptyState onPick={send} disabled={!settings.current} />
            ) : (
              <div className="flex flex-col gap-7">
                {messages.map((message, index) => [
                  message.role === "user" ? (
                    <UserMessage
                      key={message.id}
                      message={message}
                      editing={editingId === message.id}
                      onStartEdit={busy ? undefined : () => setEditingId(message.id)}
                      onCancelEdit={() => setEditingId(null)}
                      onSubmitEdit={(text) => submitEdit(message, text)}
                    />
                  ) : (
                    <AssistantMessage key={message.id} message={message} streaming={busy && message === lastMessage} />
                  ),
                  isFailedMessage(message) ? failureAfter(message, index) : null,
                ])}
                {status === "submitted" && lastMessage?.role !== "assistant" && (
                  <div className="flex items-center gap-2 text-sm text-muted-foreground">
                    <WaitingIndicator />
                    <span>Thinking…</span>
                  </div>
                )}
                {!busy && lastMessage?.role === "assistant" && !isFailedMessage(lastMessage) && <div className="-mt-4">{regenerateButton}</div>}
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
              text={draft}
              onTextChange={setDraft}
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
    </div>
  );
}
