"use client";

import type { ChatStatus } from "ai";
import type { ChatErrorInfo } from "@/lib/client/chat-error";
import { failureOf, isFailedMessage, isVoiceMessage, messageMetadata, type ChatUIMessage } from "@/lib/client/chat-turns";
import { isInterrupted } from "@/lib/client/interrupted-answers";
import type { VersionPosition } from "@/lib/client/message-tree";
import { secondaryButton } from "../ui/button-styles";
import { RefreshIcon } from "../ui/icons";
import { WaitingIndicator } from "../ui/waiting-indicator";
import { AgentActionNote } from "../voice/voice-turn-marks";
import { AssistantMessage } from "./chat-message";
import { ChatEmptyState } from "./chat-empty-state";
import { ChatErrorAlert } from "./chat-error-alert";
import { FailedTurn } from "./failed-turn";
import { InterruptedAnswer } from "./interrupted-answer";
import { MessageBoundary, MessageUnavailable } from "./message-boundary";
import { UserMessage } from "./user-message";

/** What a person can do to the messages on screen. */
export interface MessageActions {
  /** A suggestion of the empty conversation was picked. */
  send: (text: string) => boolean;
  startEdit: (message: ChatUIMessage) => void;
  cancelEdit: () => void;
  submitEdit: (message: ChatUIMessage, text: string) => void;
  regenerate: (answer: ChatUIMessage) => void;
  continueAnswer: (answer: ChatUIMessage) => void;
  /** Shows another version of a question or an answer (‹ 1 / 2 ›), with what follows it. */
  showVersion: (message: ChatUIMessage, index: number) => void;
  retry: (question: ChatUIMessage) => void;
  /** A failed turn's text goes back into the message box. */
  editFailed: (question: ChatUIMessage) => void;
  removeFailed: (question: ChatUIMessage) => void;
  /** After a 413: a fresh chat with the last good exchange. */
  newChatWithLastTurn: (question: ChatUIMessage) => void;
  signInAgain: () => void;
}

interface MessageListProps {
  messages: ChatUIMessage[];
  /** The messages on screen that have other versions, and which one each is. */
  versions: ReadonlyMap<string, VersionPosition>;
  status: ChatStatus;
  busy: boolean;
  /** A model can be called now. */
  canCall: boolean;
  editingId: string | null;
  /** A failed regenerate or continue, said once under the answer. */
  answerCallFailure: ChatErrorInfo | undefined;
  /** A kept failure as it reads now (ChatSetup.failureShown). */
  failureShown: (failure: ChatErrorInfo) => ChatErrorInfo;
  actions: MessageActions;
}

/** The conversation's messages, each failed turn's row, the waiting line and Regenerate; or the empty state. */
export function MessageList({ messages, versions, status, busy, canCall, editingId, answerCallFailure, failureShown, actions }: MessageListProps) {
  if (messages.length === 0) return <ChatEmptyState onPick={actions.send} disabled={!canCall} />;
  const lastMessage = messages.at(-1);
  const lastUser = messages.findLast((message) => message.role === "user");

  /** The failure row after a failed turn: after its partial answer when there is one. */
  const failureAfter = (message: ChatUIMessage, index: number) => {
    const next = messages[index + 1];
    if (next && next.role === "assistant" && isFailedMessage(next)) return null;
    const user = message.role === "user" ? message : messages.slice(0, index).findLast((candidate) => candidate.role === "user");
    const kept = user ? failureOf(user) : undefined;
    if (!user || !kept) return null;
    const failure = failureShown(kept);
    return (
      <FailedTurn
        key={`${user.id}-failure`}
        failure={failure}
        latest={user === lastUser}
        enabled={!busy && canCall}
        onRetry={() => actions.retry(user)}
        onEdit={() => actions.editFailed(user)}
        onRemove={() => actions.removeFailed(user)}
        onSignIn={actions.signInAgain}
        onNewChatWithLastTurn={() => actions.newChatWithLastTurn(user)}
      />
    );
  };

  const answer = (message: ChatUIMessage) => (
    <AssistantMessage
      message={message}
      streaming={busy && message === lastMessage}
      versions={{ ...(versions.get(message.id) ?? { index: 0, count: 1 }), onShow: busy ? undefined : (index) => actions.showVersion(message, index) }}
      footer={
        !busy && message === lastMessage && isInterrupted(message) ? (
          <InterruptedAnswer enabled={canCall} onContinue={() => actions.continueAnswer(message)} onTryAgain={() => actions.regenerate(message)} />
        ) : null
      }
    />
  );

  return (
    <div className="flex flex-col gap-7">
      {messages.map((message, index) => [
        <MessageBoundary key={message.id} messageId={message.id} message={message}>
          {message.role === "user" ? (
            <UserMessage
              message={message}
              editing={editingId === message.id}
              onStartEdit={busy || isVoiceMessage(message) ? undefined : () => actions.startEdit(message)}
              onCancelEdit={actions.cancelEdit}
              onSubmitEdit={(text) => actions.submitEdit(message, text)}
              versions={versions.get(message.id)}
              onShowVersion={busy ? undefined : (index) => actions.showVersion(message, index)}
            />
          ) : message.role !== "assistant" ? (
            // A system message an older import kept: never shown as an answer, never sent.
            <MessageUnavailable messageId={message.id} />
          ) : messageMetadata(message).agentAction ? (
            <AgentActionNote message={message} />
          ) : (
            answer(message)
          )}
        </MessageBoundary>,
        isFailedMessage(message) ? failureAfter(message, index) : null,
      ])}
      {status === "submitted" && (lastMessage?.role !== "assistant" || lastMessage.parts.length === 0) && (
        <div className="flex items-center gap-2 text-sm text-muted-foreground">
          <WaitingIndicator />
          <span>Thinking…</span>
        </div>
      )}
      {!busy && answerCallFailure && <ChatErrorAlert error={answerCallFailure} onSignIn={actions.signInAgain} />}
      {/* A voice turn is the voice's own answer: the text model does not answer it again. */}
      {!busy && lastMessage?.role === "assistant" && !isFailedMessage(lastMessage) && !isInterrupted(lastMessage) && !isVoiceMessage(lastMessage) && (
        <div className="-mt-4">
          <button type="button" data-testid="regenerate-button" onClick={() => actions.regenerate(lastMessage)} disabled={!canCall} className={`${secondaryButton} h-8`}>
            <RefreshIcon className="size-3.5" />
            Regenerate
          </button>
        </div>
      )}
    </div>
  );
}
