"use client";

import { type ClipboardEvent, type DragEvent, type KeyboardEvent, type MouseEvent, type RefObject } from "react";
import { enterSendsMessage } from "@/lib/client/composer-keys";
import { IMAGE_LIMITS } from "@/lib/client/image-attachments";
import { iconButton } from "../ui/button-styles";
import { FilePicker } from "../ui/file-picker";
import { AttachDocumentButton, ComposerDocuments, type DocumentChip } from "./document-chips";
import { ArrowUpIcon, ImageIcon, StopIcon, XIcon } from "../ui/icons";

interface ComposerAttachment {
  id: string;
  url: string;
  name: string;
}

interface ChatComposerProps {
  /** Submits the text; returns false when it could not be sent (the text then stays in the box). */
  onSend: (text: string) => boolean;
  /** The text in the box (kept by the caller, so it can be restored, edited into and saved as a draft). */
  text: string;
  onTextChange: (text: string) => void;
  onStop: () => void;
  streaming: boolean;
  canSend: boolean;
  /** Why sending is not possible right now, shown as the placeholder. */
  placeholder: string;
  /** The model / effort / Fast controls shown under the text box. */
  controls: React.ReactNode;
  inputRef?: RefObject<HTMLTextAreaElement | null>;
  /** Images attached to the next message, shown as thumbnails with a remove button. */
  attachments: ComposerAttachment[];
  /** Whether the chosen model takes images: the attach button is offered only then. */
  imagesAllowed: boolean;
  /** Files picked, pasted or dropped; the caller checks and shrinks them. */
  onAddFiles: (files: File[]) => void;
  onRemoveAttachment: (id: string) => void;
  /** Why the last file could not be attached, or null. */
  attachError: string | null;
  /** Documents (text files, PDFs) attached to the next message, and the names of those still being read. */
  documents: DocumentChip[];
  readingDocuments: string[];
  onRemoveDocument: (id: string) => void;
}

/** The message box: Enter sends, Shift+Enter adds a line, the send button turns into Stop while streaming. */
export function ChatComposer({
  onSend,
  text,
  onTextChange,
  onStop,
  streaming,
  canSend,
  placeholder,
  controls,
  inputRef,
  attachments,
  imagesAllowed,
  onAddFiles,
  onRemoveAttachment,
  attachError,
  documents,
  readingDocuments,
  onRemoveDocument,
}: ChatComposerProps) {
  // Not while a document is still being read: its text would be left out.
  const sendable =
    canSend && !streaming && readingDocuments.length === 0 && (text.trim().length > 0 || attachments.length > 0 || documents.length > 0);

  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = Array.from(event.clipboardData.files);
    if (files.length === 0) return;
    event.preventDefault();
    onAddFiles(files);
  };
  const onDragOver = (event: DragEvent<HTMLFormElement>) => {
    if (event.dataTransfer.types.includes("Files")) event.preventDefault();
  };
  const onDrop = (event: DragEvent<HTMLFormElement>) => {
    const files = Array.from(event.dataTransfer.files);
    if (files.length === 0) return;
    event.preventDefault();
    onAddFiles(files);
  };

  const submit = () => {
    if (!sendable) return;
    if (onSend(text.trim())) onTextChange("");
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // An Enter that confirms an IME candidate must not send (isComposing, or Safari's keyCode 229).
    if (
      enterSendsMessage({
        key: event.key,
        shiftKey: event.shiftKey,
        isComposing: event.nativeEvent.isComposing,
        keyCode: event.nativeEvent.keyCode,
      })
    ) {
      event.preventDefault();
      submit();
    }
  };

  // Send turns into Stop under the pointer: the second click of a double-click on Send (detail 2)
  // must not stop the answer it just asked for.
  const onStopClick = (event: MouseEvent<HTMLButtonElement>) => {
    if (event.detail > 1) return;
    onStop();
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      onDragOver={onDragOver}
      onDrop={onDrop}
      className="rounded-[1.4rem] border border-border bg-card shadow-[0_1px_2px_rgb(0_0_0/0.04),0_6px_20px_-10px_rgb(0_0_0/0.15)] focus-within:border-input"
    >
      {attachments.length > 0 && (
        <ul aria-label="Attached images" className="flex flex-wrap gap-2 px-3 pt-3">
          {attachments.map((attachment) => (
            <li key={attachment.id} data-testid="attachment" className="relative">
              {/* eslint-disable-next-line @next/next/no-img-element -- a local data URL preview, nothing to optimise */}
              <img src={attachment.url} alt={attachment.name} className="size-16 rounded-lg border border-border object-cover" />
              <button
                type="button"
                data-testid="remove-attachment"
                onClick={() => onRemoveAttachment(attachment.id)}
                aria-label={`Remove ${attachment.name}`}
                className="absolute -top-2 -right-2 inline-flex size-6 items-center justify-center rounded-full border border-border bg-card text-foreground shadow-sm hover:bg-muted focus-visible:outline-2 focus-visible:outline-ring"
              >
                <XIcon className="size-3" />
              </button>
            </li>
          ))}
        </ul>
      )}
      <ComposerDocuments documents={documents} reading={readingDocuments} onRemove={onRemoveDocument} />
      {attachError && (
        <p role="alert" data-testid="attach-error" className="px-4 pt-2 text-[13px] text-destructive">
          {attachError}
        </p>
      )}
      <label htmlFor="chat-input" className="sr-only">
        Message
      </label>
      <textarea
        id="chat-input"
        ref={inputRef}
        data-testid="chat-input"
        value={text}
        onChange={(event) => onTextChange(event.target.value)}
        dir="auto"
        onKeyDown={onKeyDown}
        onPaste={onPaste}
        placeholder={placeholder}
        rows={1}
        enterKeyHint="send"
        className="block max-h-[40dvh] min-h-[3.25rem] w-full resize-none bg-transparent px-4 pt-3.5 pb-1 text-[15px] leading-6 text-foreground [field-sizing:content] placeholder:text-muted-foreground focus:outline-none"
      />
      <div className="flex items-end justify-between gap-2 px-2 pb-2">
        <div className="flex min-w-0 flex-wrap items-center gap-0.5">
          {imagesAllowed && (
            <>
              <FilePicker
                accept={IMAGE_LIMITS.acceptedTypes.join(",")}
                multiple
                onFiles={onAddFiles}
                inputTestId="attach-input"
                data-testid="attach-button"
                aria-label="Attach images"
                title="Attach images (or paste or drop them here)"
                className={`${iconButton} size-8 shrink-0`}
              >
                <ImageIcon className="size-4" />
              </FilePicker>
            </>
          )}
          <AttachDocumentButton onAddFiles={onAddFiles} />
          {controls}
        </div>
        {streaming ? (
          <button
            type="button"
            data-testid="stop-button"
            onClick={onStopClick}
            aria-label="Stop answering"
            className="inline-flex size-9 shrink-0 items-center justify-center rounded-full bg-primary text-primary-foreground transition-colors hover:bg-primary/85 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
          >
            <StopIcon className="size-4" />
          </button>
        ) : (
          <button
            type="submit"
            data-testid="send-button"
            disabled={!sendable}
            aria-label="Send message"
            className="inline-flex size-9 shrink-0 items-center justify-center rounded-full bg-primary text-primary-foreground transition-colors hover:bg-primary/85 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:cursor-not-allowed disabled:bg-muted disabled:text-muted-foreground"
          >
            <ArrowUpIcon className="size-[18px]" />
          </button>
        )}
      </div>
    </form>
  );
}
