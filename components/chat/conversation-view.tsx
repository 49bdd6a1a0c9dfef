"use client";

import { useChat } from "@ai-sdk/react";
import { useEffect, useRef, useState, type ReactNode } from "react";
import type { ChatTransport, FileUIPart } from "ai";
import { IMAGE_LIMITS, imageFileProblem, prepareImage } from "@/lib/client/image-attachments";
import { DOCUMENT_LIMITS, documentKindOf, documentPart, readDocument, unsupportedFileProblem } from "@/lib/client/document-attachments";
import { decodeChatError, type ChatErrorInfo } from "@/lib/client/chat-error";
import { chatRequestOptions, type ChatCallSettings } from "@/lib/client/chat-request-options";
import { discardNewestVersion, showVersion, startNewVersion, versionPosition, withoutEmptyNewestVersion } from "@/lib/client/answer-versions";
import {
  failureOf,
  isFailedMessage,
  isVoiceMessage,
  lastCompletedExchange,
  markLastTurnFailed,
  messageMetadata,
  removeTurn,
  textOf,
  type ChatUIMessage,
  type ImagesLeftOut,
} from "@/lib/client/chat-turns";
import { interruptedSnapshot, isInterrupted, withoutInterruptedMark } from "@/lib/client/interrupted-answers";
import { focusComposerOnOpen } from "@/lib/client/keyboard-shortcuts";
import { imagesSentWith, withImagesLeftOutNote } from "@/lib/client/request-messages";
import { throttleLatest, type ThrottledLatest } from "@/lib/client/throttle";
import { secondaryButton } from "../ui/button-styles";
import { ChatComposer } from "./chat-composer";
import { ChatEmptyState } from "./chat-empty-state";
import type { DocumentChip } from "./document-chips";
import { AssistantMessage } from "./chat-message";
import { ChatErrorAlert } from "./chat-error-alert";
import { InterruptedAnswer } from "./interrupted-answer";
import { MessageBoundary, MessageUnavailable } from "./message-boundary";
import { FailedTurn } from "./failed-turn";
import { ArrowDownIcon, RefreshIcon } from "../ui/icons";
import { useMessageHighlight, type MessageHighlight } from "./use-message-highlight";
import { useStickToBottom } from "./use-stick-to-bottom";
import { UserMessage } from "./user-message";
import { AgentActionNote } from "../voice/voice-turn-marks";
import { WaitingIndicator } from "../ui/waiting-indicator";

const DRAFT_SAVE_DELAY_MS = 300;
/** How often an answer is saved while it streams: a reload loses at most this much of it. */
const ANSWER_SAVE_INTERVAL_MS = 1000;

/** A call that works on an answer already on screen rather than adding a turn. */
type AnswerCall = { kind: "regenerate" | "continue"; messageId: string };

interface ConversationViewProps {
  conversationId: string;
  initialMessages: ChatUIMessage[];
  initialDraft: string;
  transport: ChatTransport<ChatUIMessage>;
  /** The model settings for the next call, or null while no model can be used. */
  callSettings: ChatCallSettings | null;
  /** The chosen model takes images. */
  imagesAllowed: boolean;
  /** The chosen model's name, as the picker shows it. */
  modelName: string;
  /** The "make a picture" switch is on: the next message asks for an image. */
  imageMode: boolean;
  /** A message went out with the switch on: it has done its job (the switch turns off). */
  onImageModeUsed: () => void;
  /** False where pictures cannot be made (a Sign in with ChatGPT session): `/image …` is sent as text. */
  picturesAvailable?: boolean;
  /** The line under the message box (default: answers can be wrong, and whose plan pays). */
  footnote?: string;
  placeholder: string;
  /** Model / effort / Fast controls under the text box. */
  controls: ReactNode;
  /** Notices shown above the text box (fallback, model-list and session errors, storage). */
  notices: ReactNode;
  /** The settled conversation, to keep (not called while an answer streams). */
  onMessagesSettled: (messages: ChatUIMessage[], conversationId: string) => void;
  onDraftChange: (text: string) => void;
  /** The latest turn's failure, or undefined; the header's usage meter reads the usage-limit reset from it. */
  onLatestFailureChange: (failure: ChatErrorInfo | undefined) => void;
  /** Start a fresh conversation holding these messages and this draft (after a 413). */
  onNewChatWith: (messages: ChatUIMessage[], draft: string) => void;
  onSignInAgain: () => void;
  /** Messages to add at the end (a finished voice call's transcript); a new key adds them once. */
  appendedMessages?: { key: number; messages: ChatUIMessage[] };
  /** A message to scroll to and mark (a search result); a new key asks again. */
  highlight?: MessageHighlight;
}

/** One conversation: its messages, failed-turn handling and the message box. Keyed by conversation id. */
export function ConversationView({
  conversationId,
  initialMessages,
  initialDraft,
  transport,
  callSettings,
  imagesAllowed,
  modelName,
  imageMode,
  onImageModeUsed,
  picturesAvailable = true,
  footnote,
  placeholder,
  controls,
  notices,
  onMessagesSettled,
  appendedMessages,
  onDraftChange,
  onLatestFailureChange,
  onNewChatWith,
  onSignInAgain,
  highlight,
}: ConversationViewProps) {
  // A failed call marks its turn (see chat-turns): the error is read in onError, applied in onFinish.
  const pendingFailureRef = useRef<ChatErrorInfo | null>(null);
  // Regenerate and Continue stream into an answer already on screen; how they end decides what stays.
  const answerCallRef = useRef<AnswerCall | null>(null);
  const [answerCallFailure, setAnswerCallFailure] = useState<ChatErrorInfo | undefined>(undefined);
  const setMessagesRef = useRef<(update: (messages: ChatUIMessage[]) => ChatUIMessage[]) => void>(() => {});
  const { messages, status, sendMessage, stop, setMessages } = useChat<ChatUIMessage>({
    id: conversationId,
    messages: initialMessages,
    transport,
    onError: (caught) => {
      pendingFailureRef.current = decodeChatError(caught) ?? null;
    },
    onFinish: ({ isError, isAbort }) => {
      const failure = pendingFailureRef.current;
      pendingFailureRef.current = null;
      const answerCall = answerCallRef.current;
      answerCallRef.current = null;
      if (answerCall) {
        // The answer being regenerated or continued keeps what it had: a failed new version gives
        // way to the one before, a failed continuation stays interrupted; the failure is said once.
        const update = (message: ChatUIMessage): ChatUIMessage => {
          if (answerCall.kind === "regenerate") return isError ? discardNewestVersion(message) : isAbort ? withoutEmptyNewestVersion(message) : message;
          return isError ? { ...message, metadata: { ...message.metadata, interrupted: true } } : message;
        };
        setMessagesRef.current((current) => current.map((message) => (message.id === answerCall.messageId ? update(message) : message)));
        if (isError && failure) setAnswerCallFailure(failure);
        return;
      }
      if (isError && failure) setMessagesRef.current((current) => markLastTurnFailed(current, failure));
    },
  });
  useEffect(() => {
    setMessagesRef.current = setMessages;
  }, [setMessages]);
  const appendedKeyRef = useRef(appendedMessages?.key);
  useEffect(() => {
    if (!appendedMessages || appendedMessages.key === appendedKeyRef.current) return;
    appendedKeyRef.current = appendedMessages.key;
    setMessages((current) => [...current, ...appendedMessages.messages]);
  }, [appendedMessages, setMessages]);

  // What was loaded, to tell a change from merely opening the conversation.
  const loadedMessagesRef = useRef(messages);
  const savedDraftRef = useRef(initialDraft);

  const inputRef = useRef<HTMLTextAreaElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  const { atBottom, scrollToBottom, stopFollowing } = useStickToBottom(scrollRef, contentRef);
  useMessageHighlight(scrollRef, contentRef, highlight, stopFollowing);
  const [draft, setDraft] = useState(initialDraft);
  const [editingId, setEditingId] = useState<string | null>(null);
  const [attachments, setAttachments] = useState<{ id: string; part: FileUIPart }[]>([]);
  const [attachError, setAttachError] = useState<string | null>(null);
  const [documents, setDocuments] = useState<DocumentChip[]>([]);
  const [readingDocuments, setReadingDocuments] = useState<string[]>([]);
  // Set from the moment a turn starts until its call settles: a second submit in between (a double
  // click, Enter pressed twice) is ignored even before React has re-rendered with the new status.
  const startingRef = useRef(false);

  const busy = status === "submitted" || status === "streaming";
  const lastMessage = messages.at(-1);
  const lastUser = messages.findLast((message) => message.role === "user");
  const latestFailure = (lastUser ? failureOf(lastUser) : undefined) ?? answerCallFailure;
  // A text-only model gets the conversation without its images; the turn and the box say so.
  const imagesToLeaveOut = imagesAllowed ? 0 : imagesSentWith(messages);

  // Ready to type at once, except where the main pointer is a finger (it would pop the keyboard up).
  useEffect(() => {
    if (focusComposerOnOpen((query) => window.matchMedia(query))) inputRef.current?.focus();
  }, []);

  useEffect(() => {
    onLatestFailureChange(latestFailure);
  }, [latestFailure, onLatestFailureChange]);

  // Keep the conversation whenever it settles (and when a turn starts, so a reload mid-answer keeps
  // the question); not on every streamed word.
  useEffect(() => {
    if (status === "streaming" || messages === loadedMessagesRef.current) return;
    onMessagesSettled(messages, conversationId);
  }, [messages, status, onMessagesSettled, conversationId]);

  // While an answer streams, the text so far is kept too, at most once a second and marked
  // interrupted: if the page goes away, that is what comes back. The settled save above replaces it.
  const streamingSaveRef = useRef<ThrottledLatest<ChatUIMessage[]> | null>(null);
  useEffect(() => {
    const save = throttleLatest((current: ChatUIMessage[]) => onMessagesSettled(interruptedSnapshot(current), conversationId), ANSWER_SAVE_INTERVAL_MS);
    streamingSaveRef.current = save;
    // A closing tab, or leaving the conversation, keeps the latest text now rather than at the end of the interval.
    const onPageHide = () => save.flush();
    window.addEventListener("pagehide", onPageHide);
    return () => {
      window.removeEventListener("pagehide", onPageHide);
      save.flush();
      streamingSaveRef.current = null;
    };
  }, [onMessagesSettled, conversationId]);
  useEffect(() => {
    if (status === "streaming") streamingSaveRef.current?.push(messages);
    else streamingSaveRef.current?.cancel();
  }, [messages, status]);

  useEffect(() => {
    if (draft === savedDraftRef.current) return;
    const timer = setTimeout(() => {
      savedDraftRef.current = draft;
      onDraftChange(draft);
    }, DRAFT_SAVE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [draft, onDraftChange]);

  /** Starts one call at a time; returns false (and does nothing) while another is starting or running. */
  const startTurn = (call: (options: ReturnType<typeof chatRequestOptions>) => Promise<void>, generateImage = false, continueAnswer = false): boolean => {
    if (!callSettings || busy || startingRef.current) return false;
    startingRef.current = true;
    setAnswerCallFailure(undefined);
    scrollToBottom();
    const leaveOutImages = imagesToLeaveOut > 0;
    void call(chatRequestOptions({ ...callSettings, generateImage, leaveOutImages, continueAnswer })).finally(() => {
      startingRef.current = false;
    });
    return true;
  };

  /** What a turn's question says about its images: left out for a text-only model, or nothing. */
  const imagesNote = (count = imagesToLeaveOut): ImagesLeftOut | undefined => (count > 0 ? { model: modelName, count } : undefined);

  /** Reads attached text files and PDFs in the browser; problems are said before anything is sent. */
  const addDocuments = async (files: File[]) => {
    let room = DOCUMENT_LIMITS.maxDocuments - documents.length - readingDocuments.length;
    for (const file of files) {
      if (room <= 0) {
        setAttachError(`Up to ${DOCUMENT_LIMITS.maxDocuments} documents per message.`);
        break;
      }
      room -= 1;
      setReadingDocuments((current) => [...current, file.name]);
      try {
        const document = await readDocument(file);
        setDocuments((current) => [...current, { id: crypto.randomUUID(), document }]);
      } catch (caught) {
        setAttachError(caught instanceof Error && caught.name === "DocumentProblem" ? caught.message : `“${file.name}” could not be read.`);
      } finally {
        setReadingDocuments((current) => current.filter((_, index) => index !== current.indexOf(file.name)));
      }
    }
  };

  /**
   * Picked, pasted or dropped files: text files and PDFs are read as documents, images are checked
   * and shrunk; problems are said before anything is sent.
   */
  const addFiles = async (picked: File[]) => {
    setAttachError(null);
    const documentFiles = picked.filter((file) => documentKindOf(file) !== null);
    if (documentFiles.length > 0) void addDocuments(documentFiles);
    const files = picked.filter((file) => documentKindOf(file) === null);
    let room = IMAGE_LIMITS.maxImages - attachments.length;
    for (const file of files) {
      const problem = file.type.startsWith("image/") ? imageFileProblem(file) : unsupportedFileProblem(file.name);
      if (problem) {
        setAttachError(problem);
        continue;
      }
      if (room <= 0) {
        setAttachError(`Up to ${IMAGE_LIMITS.maxImages} images per message.`);
        break;
      }
      room -= 1;
      try {
        const part = await prepareImage(file);
        setAttachments((current) => [...current, { id: crypto.randomUUID(), part }]);
      } catch (caught) {
        setAttachError(caught instanceof Error ? caught.message : "The image could not be attached.");
      }
    }
  };

  const send = (typed: string): boolean => {
    // `/image <prompt>` asks for a picture, like the switch.
    const command = picturesAvailable ? /^\/image\s+/i.exec(typed) : null;
    const text = command ? typed.slice(command[0].length) : typed;
    const generateImage = imageMode || command !== null;
    if (attachments.length > 0 && !imagesAllowed) {
      setAttachError("The chosen model doesn't take images. Pick another model or remove the images.");
      return false;
    }
    const files = attachments.map((attachment) => attachment.part);
    // Documents go first, as the model reads them before the question (lib/client/document-attachments).
    const documentParts = documents.map(({ document }) => documentPart(document));
    const message =
      documentParts.length > 0
        ? { parts: [...documentParts, ...files, ...(text ? [{ type: "text" as const, text }] : [])] }
        : files.length > 0
          ? { text, files }
          : { text };
    const note = imagesNote();
    const started = startTurn((options) => sendMessage(note ? { ...message, metadata: { imagesLeftOut: note } } : message, options), generateImage);
    if (started) {
      setAttachments([]);
      setDocuments([]);
      setAttachError(null);
      if (imageMode) onImageModeUsed();
    }
    return started;
  };

  /** The turn's question notes whether its images were left out this time. */
  const notingImages = (current: ChatUIMessage[]): ChatUIMessage[] => {
    const question = current.findLast((message) => message.role === "user");
    return question ? withImagesLeftOutNote(current, question.id, imagesNote()) : current;
  };

  /** Answers the last question again into the same answer; the earlier answers stay as its versions. */
  const regenerateAnswer = (answer: ChatUIMessage) => {
    startTurn((options) => {
      answerCallRef.current = { kind: "regenerate", messageId: answer.id };
      setMessages((current) => notingImages(current.map((message) => (message.id === answer.id ? startNewVersion(message) : message))));
      // Without a new message, the call streams into the last answer (the emptied one).
      return sendMessage(undefined, options);
    });
  };

  /** Asks the model to carry on an interrupted answer from its saved text. */
  const continueAnswer = (answer: ChatUIMessage) => {
    startTurn(
      (options) => {
        answerCallRef.current = { kind: "continue", messageId: answer.id };
        setMessages((current) => notingImages(withoutInterruptedMark(current, answer.id)));
        return sendMessage(undefined, options);
      },
      false,
      true,
    );
  };

  const showAnswerVersion = (answer: ChatUIMessage, index: number) => {
    setMessages((current) => current.map((message) => (message.id === answer.id ? showVersion(message, index) : message)));
  };

  /** Sends a failed turn again, as the newest turn; the failed copy goes. */
  const retryTurn = (message: ChatUIMessage) => {
    startTurn((options) => {
      const remaining = removeTurn(messages, message.id);
      setMessages(remaining);
      const note = imagesNote(imagesAllowed ? 0 : imagesSentWith([...remaining, message]));
      return sendMessage({ parts: message.parts, metadata: note ? { imagesLeftOut: note } : undefined }, options);
    });
  };

  /** Replaces a user message with edited text and answers it again; everything after it goes. */
  const submitEdit = (message: ChatUIMessage, text: string) => {
    const started = startTurn((options) => {
      const otherParts = message.parts.filter((part) => part.type !== "text");
      const upToIt = messages.slice(0, messages.findIndex((candidate) => candidate.id === message.id) + 1);
      const note = imagesNote(imagesAllowed ? 0 : imagesSentWith(upToIt));
      return sendMessage(
        { parts: [...otherParts, { type: "text", text }], messageId: message.id, metadata: note ? { imagesLeftOut: note } : undefined },
        options,
      );
    });
    if (started) setEditingId(null);
  };

  /** Closes the editor unchanged; the cursor goes back to the message box. */
  const cancelEdit = () => {
    setEditingId(null);
    if (focusComposerOnOpen((query) => window.matchMedia(query))) inputRef.current?.focus();
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

  /** After a 413: a fresh chat with the last good exchange, and the failed text back in the box. */
  const newChatWithLastTurn = async (failed: ChatUIMessage) => {
    await stop();
    onNewChatWith(lastCompletedExchange(messages), textOf(failed));
  };

  const regenerateButton = (
    <button
      type="button"
      data-testid="regenerate-button"
      onClick={() => lastMessage && regenerateAnswer(lastMessage)}
      disabled={!callSettings}
      className={`${secondaryButton} h-8`}
    >
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
        enabled={!busy && Boolean(callSettings)}
        onRetry={() => retryTurn(user)}
        onEdit={() => editFailedTurn(user)}
        onRemove={() => removeFailedTurn(user)}
        onSignIn={onSignInAgain}
        onNewChatWithLastTurn={() => void newChatWithLastTurn(user)}
      />
    );
  };

  return (
    <>
      <div ref={scrollRef} className="relative flex-1 overflow-y-auto overscroll-contain">
        <div ref={contentRef} className="mx-auto flex min-h-full w-full max-w-3xl flex-col px-4 pt-6 pb-4 sm:px-6">
          {messages.length === 0 ? (
            <ChatEmptyState onPick={send} disabled={!callSettings} />
          ) : (
            <div className="flex flex-col gap-7">
              {messages.map((message, index) => [
                <MessageBoundary key={message.id} messageId={message.id} message={message}>
                  {message.role === "user" ? (
                    <UserMessage
                      message={message}
                      editing={editingId === message.id}
                      onStartEdit={busy || isVoiceMessage(message) ? undefined : () => setEditingId(message.id)}
                      onCancelEdit={cancelEdit}
                      onSubmitEdit={(text) => submitEdit(message, text)}
                    />
                  ) : message.role !== "assistant" ? (
                    // A system message an older import kept: never shown as an answer, never sent.
                    <MessageUnavailable messageId={message.id} />
                  ) : messageMetadata(message).agentAction ? (
                    <AgentActionNote message={message} />
                  ) : (
                    <AssistantMessage
                      message={message}
                      streaming={busy && message === lastMessage}
                      versions={{ ...versionPosition(message), onShow: busy ? undefined : (index) => showAnswerVersion(message, index) }}
                      footer={
                        !busy && message === lastMessage && isInterrupted(message) ? (
                          <InterruptedAnswer enabled={Boolean(callSettings)} onContinue={() => continueAnswer(message)} onTryAgain={() => regenerateAnswer(message)} />
                        ) : null
                      }
                    />
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
              {!busy && answerCallFailure && <ChatErrorAlert error={answerCallFailure} onSignIn={onSignInAgain} />}
              {/* A voice turn is the voice's own answer: the text model does not answer it again. */}
              {!busy && lastMessage?.role === "assistant" && !isFailedMessage(lastMessage) && !isInterrupted(lastMessage) && !isVoiceMessage(lastMessage) && (
                <div className="-mt-4">{regenerateButton}</div>
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
          {notices}
          {imagesToLeaveOut > 0 && callSettings && (
            <p data-testid="images-left-out-notice" role="status" className="rounded-xl bg-muted px-3.5 py-2 text-[13px] text-foreground">
              {modelName} reads text only: the {imagesToLeaveOut === 1 ? "image" : `${imagesToLeaveOut} images`} in this conversation will be left out of what it sees.
            </p>
          )}
          <ChatComposer
            inputRef={inputRef}
            onSend={send}
            text={draft}
            onTextChange={setDraft}
            onStop={() => void stop()}
            streaming={busy}
            canSend={Boolean(callSettings)}
            placeholder={placeholder}
            controls={controls}
            attachments={attachments.map((attachment) => ({ id: attachment.id, url: attachment.part.url, name: attachment.part.filename ?? "image" }))}
            imagesAllowed={imagesAllowed}
            onAddFiles={(files) => void addFiles(files)}
            onRemoveAttachment={(id) => setAttachments((current) => current.filter((attachment) => attachment.id !== id))}
            attachError={attachError}
            documents={documents}
            readingDocuments={readingDocuments}
            onRemoveDocument={(id) => setDocuments((current) => current.filter((chip) => chip.id !== id))}
          />
          {footnote ? (
            <p data-testid="chat-footnote" className="text-center text-[11px] text-muted-foreground">
              {footnote}
            </p>
          ) : (
            <p className="hidden text-center text-[11px] text-muted-foreground sm:block">
              Answers can be wrong. Messages count against your ChatGPT plan.
            </p>
          )}
        </div>
        <p role="status" aria-live="polite" className="sr-only">
          {busy ? "Answering…" : status === "ready" && lastMessage?.role === "assistant" ? "Answer complete." : ""}
        </p>
      </div>
    </>
  );
}
