"use client";

import type { ReactNode, RefObject } from "react";
import { ArrowDownIcon } from "../ui/icons";
import { ChatComposer } from "./chat-composer";
import type { Attachments } from "./use-attachments";

interface ConversationFooterProps {
  inputRef: RefObject<HTMLTextAreaElement | null>;
  draft: string;
  onDraftChange: (text: string) => void;
  onSend: (text: string) => boolean;
  onStop: () => void;
  busy: boolean;
  canSend: boolean;
  /** The conversation is scrolled up from its end: offer the way back down. */
  scrolledUp: boolean;
  onScrollToBottom: () => void;
  attachments: Attachments;
  imagesAllowed: boolean;
  modelName: string;
  /** How many of the conversation's images a text-only model leaves out. */
  imagesLeftOut: number;
  placeholder: string;
  footnote?: string;
  /** Model / effort / Fast controls under the text box. */
  controls: ReactNode;
  /** Notices shown above the text box (fallback, model-list and session errors, storage). */
  notices: ReactNode;
  /** Said to screen readers: answering, or the answer complete. */
  liveStatus: string;
}

/** Under the conversation: notices, the message box with its attachments and controls, and the footnote. */
export function ConversationFooter(props: ConversationFooterProps) {
  const { attachments, imagesLeftOut } = props;
  return (
    <div className="relative shrink-0 px-3 pb-[max(0.75rem,env(safe-area-inset-bottom))] sm:px-6">
      {props.scrolledUp && (
        <button
          type="button"
          onClick={props.onScrollToBottom}
          aria-label="Scroll to the latest message"
          className="absolute -top-12 left-1/2 inline-flex size-9 -translate-x-1/2 items-center justify-center rounded-full border border-border bg-card text-foreground shadow-md hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
        >
          <ArrowDownIcon className="size-4" />
        </button>
      )}
      <div className="mx-auto flex w-full max-w-3xl flex-col gap-2">
        {props.notices}
        {imagesLeftOut > 0 && props.canSend && (
          <p data-testid="images-left-out-notice" role="status" className="rounded-xl bg-muted px-3.5 py-2 text-[13px] text-foreground">
            {props.modelName} reads text only: the {imagesLeftOut === 1 ? "image" : `${imagesLeftOut} images`} in this conversation will be left out of what it sees.
          </p>
        )}
        <ChatComposer
          inputRef={props.inputRef}
          onSend={props.onSend}
          text={props.draft}
          onTextChange={props.onDraftChange}
          onStop={props.onStop}
          streaming={props.busy}
          canSend={props.canSend}
          placeholder={props.placeholder}
          controls={props.controls}
          attachments={attachments.images.map((image) => ({ id: image.id, url: image.part.url, name: image.part.filename ?? "image" }))}
          imagesAllowed={props.imagesAllowed}
          onAddFiles={(files) => void attachments.addFiles(files)}
          onRemoveAttachment={attachments.removeImage}
          attachError={attachments.problem}
          documents={attachments.documents}
          readingDocuments={attachments.readingDocuments}
          onRemoveDocument={attachments.removeDocument}
        />
        {props.footnote ? (
          <p data-testid="chat-footnote" className="text-center text-[11px] text-muted-foreground">
            {props.footnote}
          </p>
        ) : (
          <p className="hidden text-center text-[11px] text-muted-foreground sm:block">Answers can be wrong. Messages count against your ChatGPT plan.</p>
        )}
      </div>
      <p role="status" aria-live="polite" className="sr-only">
        {props.liveStatus}
      </p>
    </div>
  );
}
