"use client";

import { useState } from "react";
import { secondaryButton } from "../ui/button-styles";

/** A one-line box to type to the voice session; the answer comes back spoken and in the transcript. */
export function VoiceTextForm({ onSend, disabled }: { onSend: (text: string) => boolean; disabled: boolean }) {
  const [text, setText] = useState("");
  const sendable = !disabled && text.trim() !== "";
  return (
    <form
      className="flex gap-2"
      onSubmit={(event) => {
        event.preventDefault();
        if (sendable && onSend(text.trim())) setText("");
      }}
    >
      <label htmlFor="voice-text-input" className="sr-only">
        Type to the assistant
      </label>
      <input
        id="voice-text-input"
        data-testid="voice-text-input"
        value={text}
        onChange={(event) => setText(event.target.value)}
        disabled={disabled}
        placeholder={disabled ? "Available during a call" : "Type instead of talking"}
        autoComplete="off"
        enterKeyHint="send"
        className="h-10 min-w-0 flex-1 rounded-full border border-input bg-card px-4 text-[15px] text-foreground placeholder:text-muted-foreground focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:opacity-60"
      />
      <button type="submit" data-testid="voice-text-send" disabled={!sendable} className={secondaryButton}>
        Send
      </button>
    </form>
  );
}
