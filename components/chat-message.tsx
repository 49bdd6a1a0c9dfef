"use client";

import type { UIMessage } from "ai";
import { CopyButton } from "./copy-button";
import { iconButton } from "./button-styles";
import { MarkdownContent } from "./markdown-content";
import { ReasoningSummary } from "./reasoning-summary";

function textOf(message: UIMessage): string {
  return message.parts
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("");
}

function reasoningOf(message: UIMessage): string {
  return message.parts
    .filter((part) => part.type === "reasoning")
    .map((part) => part.text)
    .filter((text) => text.trim().length > 0)
    .join("\n\n");
}

/** One message of the conversation: the person's text in a bubble, the model's answer as Markdown. */
export function ChatMessage({ message, streaming }: { message: UIMessage; streaming: boolean }) {
  if (message.role === "user") {
    return (
      <div data-testid="message-user" className="flex justify-end">
        <div className="max-w-[85%] rounded-[1.25rem] bg-user-bubble px-4 py-2.5 text-[15px] leading-6 whitespace-pre-wrap break-words text-foreground">
          {textOf(message)}
        </div>
      </div>
    );
  }

  const text = textOf(message);
  const reasoning = reasoningOf(message);
  const thinking = streaming && text.length === 0;
  return (
    <article data-testid="message-assistant" data-status={streaming ? "streaming" : "done"} aria-label="Answer" className="group/message min-w-0">
      {reasoning && <ReasoningSummary text={reasoning} thinking={thinking} />}
      {text ? (
        <MarkdownContent text={text} streaming={streaming} className="text-[15px] leading-7 text-foreground" />
      ) : (
        !streaming && <p className="text-sm italic text-muted-foreground">No answer text.</p>
      )}
      {!streaming && text && (
        <div className="-ml-2 mt-1 flex opacity-100 transition-opacity sm:opacity-0 sm:group-hover/message:opacity-100 sm:focus-within:opacity-100">
          <CopyButton text={text} label="Copy answer" showLabel={false} className={`${iconButton} size-8`} />
        </div>
      )}
    </article>
  );
}
