import { failureOf, markLastTurnFailed, messageMetadata, type ChatUIMessage } from "./chat-turns";
import { nothingArrived } from "./message-tree";

/**
 * No answer is lost to a reload: while an answer streams, the conversation is saved now and then
 * (throttled) with the answer so far marked `interrupted`. A finished answer is saved again without
 * the mark, so only an answer whose page went away keeps it. Such an answer offers Continue and
 * Try again.
 */
export function isInterrupted(message: ChatUIMessage): boolean {
  return messageMetadata(message).interrupted === true;
}

/** Parts as they stand mid-stream, made whole: text settled, reasoning cut short (no encrypted content yet) dropped. */
function settledParts(parts: ChatUIMessage["parts"]): ChatUIMessage["parts"] {
  return parts
    .filter((part) => !(part.type === "reasoning" && part.state === "streaming"))
    .map((part) => (part.type === "text" ? { ...part, state: "done" as const } : part));
}

/** What to save while an answer streams: the conversation, with the answer so far marked interrupted. */
export function interruptedSnapshot(messages: readonly ChatUIMessage[]): ChatUIMessage[] {
  const last = messages.at(-1);
  if (!last || last.role !== "assistant") return [...messages];
  const marked: ChatUIMessage = { ...last, parts: settledParts(last.parts), metadata: { ...messageMetadata(last), interrupted: true } };
  return [...messages.slice(0, -1), marked];
}

/** The answer without its interrupted mark (it is being continued). */
export function withoutInterruptedMark(messages: readonly ChatUIMessage[], messageId: string): ChatUIMessage[] {
  return messages.map((message) => {
    if (message.id !== messageId || !isInterrupted(message)) return message;
    const metadata = { ...messageMetadata(message) };
    delete metadata.interrupted;
    return { ...message, metadata };
  });
}

/**
 * A conversation's branch as kept, ready to show again. A question saved before any answer arrived
 * shows as failed (to retry). (A regeneration that got nothing is not on the branch: the tree
 * shows the version before it, lib/client/message-tree.)
 */
export function messagesAfterReload(messages: readonly ChatUIMessage[]): ChatUIMessage[] {
  const last = messages.at(-1);
  if (!last) return [...messages];
  if (last.role === "assistant") {
    // An answer saved before its first word (the save when a turn starts may already hold its empty
    // message, unmarked): the question got no answer.
    if (!nothingArrived(last)) return [...messages];
    return messagesAfterReload(messages.slice(0, -1));
  }
  if (last.role !== "user" || failureOf(last)) return [...messages];
  return markLastTurnFailed(messages, {
    code: "stream_failed",
    message: "The page was closed or reloaded before the answer arrived. Try again.",
  });
}
