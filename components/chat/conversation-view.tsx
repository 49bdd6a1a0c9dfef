"use client";

import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { generateId } from "ai";
import { lastCompletedExchange, removeTurn, textOf, type ChatUIMessage } from "@/lib/client/chat-turns";
import type { ConversationCommand } from "@/lib/client/conversation-inbox";
import { focusComposerOnOpen } from "@/lib/client/keyboard-shortcuts";
import { showVersion, withPath, type MessageTree } from "@/lib/client/message-tree";
import { imagesSentWith } from "@/lib/client/request-messages";
import { continueTurn, editTurn, regenerateTurn, removedBy, retryTurn, sendProblem, sendTurn } from "@/lib/client/turn-actions";
import { useChatSetup } from "./chat-context";
import { ConversationFooter } from "./conversation-footer";
import { MessageList, type MessageActions } from "./message-list";
import { useAttachments } from "./use-attachments";
import { useConversationCommands } from "./use-conversation-commands";
import { useConversationSaver } from "./use-conversation-saver";
import { useConversationTurns } from "./use-conversation-turns";
import { useFirstAnswer } from "./use-first-answer";
import { useMessageHighlight, type MessageHighlight } from "./use-message-highlight";
import { useRemoteChanges } from "./use-remote-changes";
import { useStickToBottom } from "./use-stick-to-bottom";

interface ConversationViewProps {
  /** The conversation as opened: its id, the branch shown, its whole tree of messages and its unsent text. */
  conversation: { id: string; messages: ChatUIMessage[]; tree: MessageTree; draft: string };
  /** Model / effort / Fast controls under the text box. */
  controls: ReactNode;
  /** Notices shown above the text box (fallback, model-list and session errors, storage). */
  notices: ReactNode;
}

/** Whether to put the cursor in the message box: not where the main pointer is a finger (it would pop the keyboard up). */
const focusesComposer = () => focusComposerOnOpen((query) => window.matchMedia(query));

/**
 * One conversation: its messages, failed-turn handling and the message box. Keyed by conversation
 * id; the rest comes from ChatSetupProvider. Each turn is a turn action (lib/client/turn-actions).
 */
export function ConversationView({ conversation, controls, notices }: ConversationViewProps) {
  const setup = useChatSetup();
  const { callSettings, model } = setup;
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  const { atBottom, scrollToBottom, stopFollowing } = useStickToBottom(scrollRef, contentRef);
  const turns = useConversationTurns(conversation.id, conversation.messages, scrollToBottom);
  const { messages, status, busy, setMessages } = turns;
  const attachments = useAttachments();
  const [draft, setDraft] = useState(conversation.draft);
  const [editingId, setEditingId] = useState<string | null>(null);
  const [highlight, setHighlight] = useState<MessageHighlight | undefined>(undefined);
  useMessageHighlight(scrollRef, contentRef, highlight, stopFollowing);
  const saver = useConversationSaver(setup.persistence, conversation.id, { messages, status, draft });
  const remote = useRemoteChanges({ initialTree: conversation.tree, messages, busy, setMessages, adopt: saver.adopt });
  const { tree, receive } = remote;
  const { onFirstAnswer } = setup;
  useFirstAnswer(
    messages,
    status,
    useCallback((answered: ChatUIMessage[]) => onFirstAnswer(conversation.id, answered), [onFirstAnswer, conversation.id]),
  );
  useConversationCommands(
    conversation.id,
    useCallback(
      (command: ConversationCommand) => {
        if (command.type === "append") setMessages((current) => [...current, ...command.messages]);
        else if (command.type === "remote") receive(command.tree);
        else setHighlight(command.messageId === null ? undefined : { messageId: command.messageId });
      },
      [setMessages, receive],
    ),
  );

  // Ready to type at once, except where the main pointer is a finger.
  useEffect(() => {
    if (focusesComposer()) inputRef.current?.focus();
  }, []);

  // A text-only model gets the conversation without its images; the turn and the box say so.
  const imagesLeftOut = model.imagesAllowed ? 0 : imagesSentWith(messages);

  const send = (text: string): boolean => {
    const outgoing = {
      text,
      images: attachments.images.map((image) => image.part),
      documents: attachments.documents.map((chip) => chip.document),
      imageMode: setup.imageMode,
      picturesAvailable: setup.picturesAvailable,
    };
    const problem = sendProblem(outgoing, model);
    if (problem) {
      attachments.setProblem(problem);
      return false;
    }
    const started = turns.start(sendTurn(messages, outgoing, model, generateId()));
    if (started) {
      attachments.clear();
      if (setup.imageMode) setup.onImageModeUsed();
      setup.onSent?.();
    }
    return started;
  };

  const removeFailed = (question: ChatUIMessage) => {
    const remaining = removeTurn(messages, question.id);
    setup.persistence.removeMessages(conversation.id, removedBy(messages, remaining));
    setMessages(remaining);
    if (editingId === question.id) setEditingId(null);
  };
  // An action that takes the branch elsewhere first keeps what is on screen in the tree (it becomes another version).
  const keepBranch = () => remote.keep(withPath(tree, messages, Date.now()));

  const actions: MessageActions = {
    send,
    startEdit: (message) => setEditingId(message.id),
    // The editor closes unchanged; the cursor goes back to the message box.
    cancelEdit: () => {
      setEditingId(null);
      if (focusesComposer()) inputRef.current?.focus();
    },
    submitEdit: (message, text) => {
      keepBranch();
      if (turns.start(editTurn(messages, message.id, text, model, generateId()))) setEditingId(null);
    },
    regenerate: (answer) => {
      keepBranch();
      turns.start(regenerateTurn(messages, answer.id, model, generateId()));
    },
    continueAnswer: (answer) => turns.start(continueTurn(messages, answer.id, model)),
    showVersion: (message, index) => {
      const full = withPath(tree, messages, Date.now());
      remote.keep(full);
      setMessages(showVersion(full, messages, message.id, index, Date.now()));
    },
    retry: (question) => turns.start(retryTurn(messages, question.id, model, generateId())),
    editFailed: (question) => {
      removeFailed(question);
      setDraft(textOf(question));
      inputRef.current?.focus();
    },
    removeFailed,
    newChatWithLastTurn: (question) => {
      void turns.stop().then(() => setup.onNewChatWith(lastCompletedExchange(messages), textOf(question)));
    },
    signInAgain: setup.onSignInAgain,
  };

  const lastMessage = messages.at(-1);
  return (
    <>
      <div ref={scrollRef} className="relative flex-1 overflow-y-auto overscroll-contain">
        <div ref={contentRef} className="mx-auto flex min-h-full w-full max-w-3xl flex-col px-4 pt-6 pb-4 sm:px-6">
          <MessageList
            messages={messages}
            versions={remote.versions}
            status={status}
            busy={busy}
            canCall={Boolean(callSettings)}
            editingId={editingId}
            answerCallFailure={turns.answerCallFailure}
            failureShown={setup.failureShown}
            actions={actions}
          />
        </div>
      </div>
      <ConversationFooter
        inputRef={inputRef}
        draft={draft}
        onDraftChange={setDraft}
        onSend={send}
        onStop={() => void turns.stop()}
        busy={busy}
        canSend={Boolean(callSettings)}
        scrolledUp={!atBottom && messages.length > 0}
        onScrollToBottom={scrollToBottom}
        attachments={attachments}
        imagesAllowed={model.imagesAllowed}
        modelName={model.name}
        imagesLeftOut={imagesLeftOut}
        placeholder={setup.placeholder}
        footnote={setup.footnote}
        controls={controls}
        notices={notices}
        liveStatus={busy ? "Answering…" : status === "ready" && lastMessage?.role === "assistant" ? "Answer complete." : ""}
      />
    </>
  );
}
