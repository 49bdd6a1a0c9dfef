import type { UIMessage } from "ai";
import { messageMetadata, messagesForUpstream, type ChatUIMessage, type ImagesLeftOut } from "./chat-turns";

/** What Continue asks the model, after the answer it is to carry on. */
export const CONTINUE_INSTRUCTION =
  "Your previous answer was cut off. Continue it exactly where it stopped, without repeating anything you already wrote.";

interface SendShape {
  /** The model reads text only: the conversation's images stay out of the request. */
  leaveOutImages?: boolean;
  /** Carry on the last answer (it was interrupted) instead of answering the last question. */
  continueAnswer?: boolean;
}

function isImagePart(part: UIMessage["parts"][number]): boolean {
  return part.type === "file" && part.mediaType.startsWith("image/");
}

/** The images the person attached that go upstream with these messages (failed turns are not sent). */
export function imagesSentWith(messages: readonly UIMessage[]): number {
  return messagesForUpstream(messages)
    .filter((message) => message.role === "user")
    .reduce((count, message) => count + message.parts.filter(isImagePart).length, 0);
}

/** The conversation as the request carries it (see messagesForUpstream), shaped for the call. */
export function messagesToSend<M extends UIMessage>(messages: readonly M[], shape: SendShape): M[] {
  let sent = messagesForUpstream(messages);
  if (shape.leaveOutImages) {
    sent = sent
      .map((message) => (message.role === "user" ? ({ ...message, parts: message.parts.filter((part) => !isImagePart(part)) } as M) : message))
      .filter((message) => message.parts.length > 0);
  }
  if (shape.continueAnswer && sent.at(-1)?.role === "assistant") {
    sent = [...sent, { id: "continue", role: "user", parts: [{ type: "text", text: CONTINUE_INSTRUCTION }] } as unknown as M];
  }
  return sent;
}

/** Notes on a turn's question that the images were left out (or, with no note, that they were not). */
export function withImagesLeftOutNote(messages: readonly ChatUIMessage[], userMessageId: string, note: ImagesLeftOut | undefined): ChatUIMessage[] {
  return messages.map((message) => {
    if (message.id !== userMessageId) return message;
    const metadata = { ...messageMetadata(message) };
    if (note) metadata.imagesLeftOut = note;
    else delete metadata.imagesLeftOut;
    return { ...message, metadata };
  });
}
