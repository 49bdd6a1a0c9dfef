"use client";

import { generatedImagesOf, textOf } from "@/lib/client/chat-turns";
import { documentsOf } from "@/lib/client/document-attachments";
import type { SharedConversation } from "@/lib/client/shared-conversation";
import { MarkdownContent } from "../chat/markdown-content";
import { MessageDocuments } from "../chat/document-chips";

/** A shared conversation, read-only: the person's messages and the answers, nothing to act on. */
export function SharedConversationView({ conversation }: { conversation: SharedConversation }) {
  return (
    <ol data-testid="shared-messages" className="flex flex-col gap-7">
      {conversation.messages.map((message) => {
        if (message.role === "user") {
          const images = message.parts.filter((part) => part.type === "file" && part.mediaType.startsWith("image/") && part.url.startsWith("data:"));
          const text = textOf(message);
          return (
            <li key={message.id} data-testid="shared-message-user" className="flex flex-col items-end gap-1">
              <MessageDocuments documents={documentsOf(message)} />
              {images.map((part, index) =>
                part.type === "file" ? (
                  // eslint-disable-next-line @next/next/no-img-element -- a data URL kept in the snapshot
                  <img key={index} src={part.url} alt={part.filename ?? "Attached image"} className="max-h-48 max-w-full rounded-xl border border-border object-contain" />
                ) : null,
              )}
              {text && (
                <div dir="auto" className="max-w-[85%] rounded-[1.25rem] bg-user-bubble px-4 py-2.5 text-[15px] leading-6 whitespace-pre-wrap [overflow-wrap:anywhere]">
                  {text}
                </div>
              )}
            </li>
          );
        }
        return (
          <li key={message.id} data-testid="shared-message-assistant" className="flex flex-col gap-2">
            <MarkdownContent text={textOf(message)} streaming={false} />
            {generatedImagesOf(message).map((image, index) => (
              // eslint-disable-next-line @next/next/no-img-element -- a generated image kept in the snapshot
              <img key={index} src={`data:image/png;base64,${image.base64}`} alt="Generated image" className="max-w-full rounded-xl border border-border" />
            ))}
          </li>
        );
      })}
    </ol>
  );
}
