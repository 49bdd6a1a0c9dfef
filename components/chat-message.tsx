"use client";

import type { UIMessage } from "ai";
import { messageMetadata, textOf } from "@/lib/client/chat-turns";
import { CopyButton } from "./copy-button";
import { iconButton } from "./button-styles";
import { MarkdownContent } from "./markdown-content";
import { ReasoningSummary } from "./reasoning-summary";

function reasoningOf(message: UIMessage): string {
  return message.parts
    .filter((part) => part.type === "reasoning")
    .map((part) => part.text)
    .filter((text) => text.trim().length > 0)
    .join("\n\n");
}

/** One answer of the model, as Markdown (the person's messages are UserMessage). */
export function AssistantMessage({ message, streaming }: { message: UIMessage; streaming: boolean }) {
  const text = textOf(message);
  const reasoning = reasoningOf(message);
  const thinking = streaming && text.length === 0;
  const partOfFailedTurn = messageMetadata(message).failedTurn === true;
  return (
    <article
      data-testid="message-assistant"
      data-status={streaming ? "streaming" : "done"}
      data-failed={partOfFailedTurn ? "true" : undefined}
      aria-label="Answer"
      dir="auto"
      className={`group/message min-w-0 [overflow-wrap:anywhere] ${partOfFailedTurn ? "opacity-70" : ""}`}
    >
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
