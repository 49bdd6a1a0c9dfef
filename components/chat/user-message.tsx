"use client";

import { useState, type FormEvent, type KeyboardEvent } from "react";
import type { UIMessage } from "ai";
import { failureOf, messageMetadata, textOf } from "@/lib/client/chat-turns";
import { editorKeyAction } from "@/lib/client/composer-keys";
import { documentsOf } from "@/lib/client/document-attachments";
import { ghostButton, iconButton, primaryButton } from "../ui/button-styles";
import { MessageDocuments } from "./document-chips";
import { PencilIcon } from "../ui/icons";
import { VoiceMark } from "../voice/voice-turn-marks";
import { VersionSwitcher } from "./answer-version-switcher";

interface UserMessageProps {
  message: UIMessage;
  /** Editing is open for this message (the workspace keeps one editor open at a time). */
  editing: boolean;
  /** Undefined while editing is not possible (an answer is streaming). */
  onStartEdit?: () => void;
  onCancelEdit: () => void;
  /** Sends the edited text as a new version of this question; the earlier one stays, with its turns. */
  onSubmitEdit: (text: string) => void;
  /** This question's versions (an edit adds one), when it has more than one. */
  versions?: { index: number; count: number };
  /** Undefined while switching is not possible (an answer is streaming). */
  onShowVersion?: (index: number) => void;
}

/** The person's message: a bubble, an edit button, and "Not sent" when its turn failed. */
export function UserMessage({ message, editing, onStartEdit, onCancelEdit, onSubmitEdit, versions, onShowVersion }: UserMessageProps) {
  const text = textOf(message);
  const images = message.parts.filter((part) => part.type === "file" && part.mediaType.startsWith("image/"));
  const failed = failureOf(message) !== undefined;
  const { imagesLeftOut, source } = messageMetadata(message);
  const [draft, setDraft] = useState(text);

  if (editing) {
    const submit = (event?: FormEvent) => {
      event?.preventDefault();
      if (draft.trim()) onSubmitEdit(draft.trim());
    };
    // Like the message box: Enter sends, Shift+Enter adds a line; Escape cancels the edit.
    const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
      const action = editorKeyAction({
        key: event.key,
        shiftKey: event.shiftKey,
        isComposing: event.nativeEvent.isComposing,
        keyCode: event.nativeEvent.keyCode,
      });
      if (!action) return;
      event.preventDefault();
      if (action === "send") submit();
      else onCancelEdit();
    };
    return (
      <form data-testid="edit-message-form" onSubmit={submit} className="ml-auto flex w-full max-w-[85%] flex-col gap-2 rounded-[1.25rem] bg-user-bubble p-3">
        <label htmlFor={`edit-${message.id}`} className="sr-only">
          Edit message
        </label>
        <textarea
          id={`edit-${message.id}`}
          data-testid="edit-message-input"
          dir="auto"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
          enterKeyHint="send"
          autoFocus
          rows={2}
          className="block w-full resize-none rounded-lg bg-card px-3 py-2 text-[15px] leading-6 text-foreground [field-sizing:content] focus:outline-2 focus:outline-ring"
        />
        <div className="flex justify-end gap-2">
          <button type="button" onClick={onCancelEdit} className={`${ghostButton} h-8`}>
            Cancel
          </button>
          <button type="submit" data-testid="edit-message-send" disabled={!draft.trim()} className={`${primaryButton} h-8 px-4 text-sm`}>
            Send
          </button>
        </div>
      </form>
    );
  }

  return (
    <div
      data-testid="message-user"
      data-message-id={message.id}
      data-failed={failed ? "true" : undefined}
      data-source={source}
      className="group/user flex items-start justify-end gap-1"
    >
      {onStartEdit && (
        <button
          type="button"
          data-testid="edit-message-button"
          onClick={() => {
            setDraft(text);
            onStartEdit();
          }}
          aria-label="Edit message"
          className={`${iconButton} size-8 opacity-100 sm:opacity-0 sm:group-hover/user:opacity-100 sm:focus-visible:opacity-100`}
        >
          <PencilIcon className="size-4" />
        </button>
      )}
      <div className="flex max-w-[85%] flex-col items-end gap-1">
        <MessageDocuments documents={documentsOf(message)} />
        {images.length > 0 && (
          <div className="flex flex-wrap justify-end gap-2">
            {images.map((part, index) =>
              part.type === "file" ? (
                // eslint-disable-next-line @next/next/no-img-element -- the person's own image, kept as a data URL
                <img key={index} data-testid="message-image" src={part.url} alt={part.filename ?? "Attached image"} className="max-h-48 max-w-full rounded-xl border border-border object-contain" />
              ) : null,
            )}
          </div>
        )}
        {text && <div
          data-testid="question-text"
          dir="auto"
          className={`max-w-full rounded-[1.25rem] bg-user-bubble px-4 py-2.5 text-[15px] leading-6 whitespace-pre-wrap [overflow-wrap:anywhere] text-foreground ${failed ? "opacity-70" : ""}`}
        >
          {text}
        </div>}
        {versions && versions.count > 1 && <VersionSwitcher kind="question" index={versions.index} count={versions.count} onShow={onShowVersion} />}
        {source === "voice" && <VoiceMark align="end" />}
        {failed && <span className="text-xs font-medium text-destructive">Failed · left out of what the model sees</span>}
        {imagesLeftOut && (
          <span data-testid="images-left-out" className="text-right text-xs text-muted-foreground">
            {imagesLeftOut.count === 1 ? "1 image" : `${imagesLeftOut.count} images`} left out: {imagesLeftOut.model} reads text only
          </span>
        )}
      </div>
    </div>
  );
}
