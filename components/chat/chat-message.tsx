"use client";

import type { ReactNode } from "react";
import type { UIMessage } from "ai";
import { generatedImagesOf, messageMetadata, textOf } from "@/lib/client/chat-turns";
import { VersionSwitcher } from "./answer-version-switcher";
import { CopyButton } from "../ui/copy-button";
import { iconButton } from "../ui/button-styles";
import { MarkdownContent } from "./markdown-content";
import { ReasoningSummary } from "./reasoning-summary";
import { citedUrls, WebSearchIndicator, WebSearchSources } from "./web-search-sources";
import { VoiceMark } from "../voice/voice-turn-marks";

function reasoningOf(message: UIMessage): string {
  return message.parts
    .filter((part) => part.type === "reasoning")
    .map((part) => part.text)
    .filter((text) => text.trim().length > 0)
    .join("\n\n");
}

interface AssistantMessageProps {
  message: UIMessage;
  streaming: boolean;
  /** Which of the turn's answers this is, when there are several (regenerate keeps them). */
  versions?: { index: number; count: number; onShow?: (index: number) => void };
  /** Shown at the end of the answer (what an interrupted answer offers). */
  footer?: ReactNode;
}

/** One answer of the model, as Markdown (the person's messages are UserMessage). */
export function AssistantMessage({ message, streaming, versions, footer }: AssistantMessageProps) {
  const text = textOf(message);
  const reasoning = reasoningOf(message);
  const thinking = streaming && text.length === 0;
  const metadata = messageMetadata(message);
  const partOfFailedTurn = metadata.failedTurn === true;
  const interrupted = metadata.interrupted === true && !streaming;
  const showVersions = versions !== undefined && versions.count > 1;
  // While the answer streams and no text has followed, the image is still being drawn: the UI stream
  // delivers each partial image as the tool's latest output, then the final one.
  const imageInProgress = streaming && text.length === 0;
  const images = generatedImagesOf(message).map((image) => ({ ...image, partial: image.partial || imageInProgress }));
  return (
    <article
      data-testid="message-assistant"
      data-message-id={message.id}
      data-status={streaming ? "streaming" : "done"}
      data-failed={partOfFailedTurn ? "true" : undefined}
      data-interrupted={interrupted ? "true" : undefined}
      data-source={metadata.source}
      aria-label="Answer"
      dir="auto"
      className={`group/message min-w-0 [overflow-wrap:anywhere] ${partOfFailedTurn ? "opacity-70" : ""}`}
    >
      {metadata.source === "voice" && <VoiceMark />}
      {reasoning && <ReasoningSummary text={reasoning} thinking={thinking} />}
      <WebSearchIndicator message={message} />
      {images.map((image, index) => {
        const src = `data:image/png;base64,${image.base64}`;
        return (
          <figure key={index} className="my-2" data-testid={image.partial ? "image-partial" : "generated-image"}>
            {/* eslint-disable-next-line @next/next/no-img-element -- a generated image held as a data URL */}
            <img src={src} alt={image.partial ? "Image being generated" : "Generated image"} className={`h-auto max-w-full rounded-xl border border-border ${image.partial ? "opacity-80 blur-[1px]" : ""}`} />
            {!image.partial && (
              <figcaption className="mt-1.5">
                <a href={src} download={`image-${message.id.slice(0, 8)}-${index + 1}.png`} data-testid="download-image" className="text-[13px] font-medium text-accent-foreground underline underline-offset-2">
                  Download image
                </a>
              </figcaption>
            )}
          </figure>
        );
      })}
      {text ? (
        <div data-testid="answer-text">
          <MarkdownContent text={text} streaming={streaming} citedUrls={citedUrls(message)} className="text-[15px] leading-7 text-foreground" />
        </div>
      ) : (
        !streaming && images.length === 0 && <p className="text-sm italic text-muted-foreground">No answer text.</p>
      )}
      <WebSearchSources message={message} />
      {((!streaming && text) || showVersions) && (
        <div className="-ml-2 mt-1 flex items-center gap-1">
          {showVersions && <VersionSwitcher index={versions.index} count={versions.count} onShow={streaming ? undefined : versions.onShow} />}
          {!streaming && text && (
            <div className="flex opacity-100 transition-opacity sm:opacity-0 sm:group-hover/message:opacity-100 sm:focus-within:opacity-100">
              <CopyButton text={text} label="Copy answer" showLabel={false} className={`${iconButton} size-8`} />
            </div>
          )}
        </div>
      )}
      {footer}
    </article>
  );
}
