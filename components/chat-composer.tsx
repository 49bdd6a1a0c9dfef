"use client";

import type { KeyboardEvent, MouseEvent, RefObject } from "react";
import { enterSendsMessage } from "@/lib/client/composer-keys";
import { ArrowUpIcon, StopIcon } from "./icons";

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
}

/** The message box: Enter sends, Shift+Enter adds a line, the send button turns into Stop while streaming. */
export function ChatComposer({ onSend, text, onTextChange, onStop, streaming, canSend, placeholder, controls, inputRef }: ChatComposerProps) {
  const sendable = canSend && !streaming && text.trim().length > 0;

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
      className="rounded-[1.4rem] border border-border bg-card shadow-[0_1px_2px_rgb(0_0_0/0.04),0_6px_20px_-10px_rgb(0_0_0/0.15)] focus-within:border-input"
    >
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
        placeholder={placeholder}
        rows={1}
        enterKeyHint="send"
        className="block max-h-[40dvh] min-h-[3.25rem] w-full resize-none bg-transparent px-4 pt-3.5 pb-1 text-[15px] leading-6 text-foreground [field-sizing:content] placeholder:text-muted-foreground focus:outline-none"
      />
      <div className="flex items-end justify-between gap-2 px-2 pb-2">
        <div className="flex min-w-0 items-center gap-0.5">{controls}</div>
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
