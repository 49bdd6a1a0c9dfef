import type { UIMessage } from "ai";
import type { ChatErrorInfo } from "./chat-error";

/**
 * What the chat keeps on a message besides its parts. A turn whose call failed keeps its user
 * message (marked with `failure`) so it can be edited, retried or removed, and any partial answer
 * is marked `failedTurn`; neither is ever sent upstream again with later turns.
 */
interface ChatMessageMetadata {
  failure?: ChatErrorInfo;
  failedTurn?: true;
  /** An answer whose page was closed or reloaded while it streamed: the text saved until then. */
  interrupted?: true;
  /**
   * An answer's other versions, as regenerate kept them before messages had parents (and as an
   * export of that time holds them); read into messages beside it (lib/client/message-tree).
   */
  versions?: AnswerVersions;
  /** A user message sent to a model that reads text only: the conversation's images were left out. */
  imagesLeftOut?: ImagesLeftOut;
  /** On an answer: the model that wrote it (shown in exports). */
  model?: string;
  /** On an answer: when it started, epoch milliseconds (shown in exports). */
  createdAt?: number;
  /** Said in a voice call (its transcript): marked as voice, never regenerated or edited as text. */
  source?: "voice";
  /** With source voice: not words but something the agent did in the call (agentActionText). */
  agentAction?: true;
}

/** A turn of a voice call's transcript, or an agent action of one. */
export function isVoiceMessage(message: UIMessage): boolean {
  return messageMetadata(message).source === "voice";
}

/** One version of an answer: its parts and what it said about itself. */
export interface AnswerVersion {
  parts: UIMessage["parts"];
  metadata: Omit<ChatMessageMetadata, "versions">;
}

/** The versions before and after the one a message shows (its parts are the shown one). */
interface AnswerVersions {
  before: AnswerVersion[];
  after: AnswerVersion[];
}

export interface ImagesLeftOut {
  /** The model's name as the picker shows it. */
  model: string;
  count: number;
}

export type ChatUIMessage = UIMessage<ChatMessageMetadata>;

export function messageMetadata(message: UIMessage): ChatMessageMetadata {
  const metadata = message.metadata;
  return metadata !== null && typeof metadata === "object" ? (metadata as ChatMessageMetadata) : {};
}

export function failureOf(message: UIMessage): ChatErrorInfo | undefined {
  return messageMetadata(message).failure;
}

export function isFailedMessage(message: UIMessage): boolean {
  const metadata = messageMetadata(message);
  return metadata.failure !== undefined || metadata.failedTurn === true;
}

export function textOf(message: UIMessage): string {
  return message.parts
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("");
}

function hasAnswerText(message: UIMessage): boolean {
  return textOf(message).trim().length > 0;
}

/**
 * Marks the latest turn as failed: its user message carries the failure; a partial answer stays
 * visible but marked, and an empty one is dropped.
 */
export function markLastTurnFailed<M extends UIMessage>(messages: readonly M[], failure: ChatErrorInfo): M[] {
  const userIndex = messages.findLastIndex((message) => message.role === "user");
  if (userIndex < 0) return [...messages];
  const before = messages.slice(0, userIndex);
  const user = messages[userIndex]!;
  const answers = messages
    .slice(userIndex + 1)
    .filter(hasAnswerText)
    .map((message) => ({ ...message, metadata: { ...messageMetadata(message), failedTurn: true } }) as M);
  return [...before, { ...user, metadata: { ...messageMetadata(user), failure } } as M, ...answers];
}

/**
 * The conversation as the model should see it: failed turns left out, and generated images left
 * out of earlier answers (they were made upstream and are not stored there; their text stays).
 * Only the person's messages and the model's answers: a `system` message an older import kept
 * would make every call fail (the AI SDK refuses one among the messages).
 */
export function messagesForUpstream<M extends UIMessage>(messages: readonly M[]): M[] {
  return messages
    .filter((message) => (message.role === "user" || message.role === "assistant") && !isFailedMessage(message))
    .map((message) =>
      message.role === "assistant" ? ({ ...message, parts: message.parts.filter((part) => !part.type.startsWith("tool-")) } as M) : message,
    )
    .filter((message) => message.parts.length > 0);
}

interface GeneratedImage {
  /** base64 PNG */
  base64: string;
  /** True while it is a partial image of a generation still streaming. */
  partial: boolean;
}

/** The images an answer generated (the image_generation tool's results), latest state of each. */
export function generatedImagesOf(message: UIMessage): GeneratedImage[] {
  const images: GeneratedImage[] = [];
  for (const part of message.parts) {
    if (part.type !== "tool-image_generation" || !("output" in part)) continue;
    const output = part.output as { result?: unknown } | undefined;
    if (typeof output?.result !== "string" || output.result === "") continue;
    images.push({ base64: output.result, partial: "preliminary" in part && part.preliminary === true });
  }
  return images;
}

/** Removes a user message and the answers that follow it (up to the next user message). */
export function removeTurn<M extends UIMessage>(messages: readonly M[], userMessageId: string): M[] {
  const start = messages.findIndex((message) => message.id === userMessageId);
  if (start < 0) return [...messages];
  let end = start + 1;
  while (end < messages.length && messages[end]!.role !== "user") end += 1;
  return [...messages.slice(0, start), ...messages.slice(end)];
}

/** True when the turn starting at this user message is the conversation's last one. */
export function isLastTurn(messages: readonly UIMessage[], userMessageId: string): boolean {
  const start = messages.findIndex((message) => message.id === userMessageId);
  return start >= 0 && !messages.slice(start + 1).some((message) => message.role === "user");
}

/**
 * Whether sending the same turn again can work. A usage limit waits for its reset, a conversation
 * over the size limit stays over it, a model that refused images refuses them again, a request the
 * provider's safety system declined is declined again, a model out of
 * reach (above the server's client version, or retired) stays so, and a signed-out session or a
 * refused origin needs something else first; everything else (network, 5xx, a cut stream, a wait
 * of seconds) may succeed.
 */
export function canRetry(failure: ChatErrorInfo): boolean {
  return ![
    "usage_limit",
    "responses_request_too_large",
    "images_not_supported",
    "refused",
    "client_version_outdated",
    "model_not_supported",
    "not_authenticated",
    "origin_not_allowed",
    // ChatGPT plan refusals: sending the same again cannot succeed, and a limit is not retried in a loop.
    "plan_usage_limit_reached",
    "plan_usage_not_granted",
    "plan_not_eligible",
    "plan_route_not_supported",
    "plan_authorization_invalid",
    "plan_access_restricted",
    "not_available_with_siwc",
    "unsupported_field",
  ].includes(failure.code);
}

/**
 * A turn refused as signed out, shown after the person signed in again: "Sign in again" has nothing
 * left to do, and sending the turn again can work now. Any other failure is shown as it was.
 */
export function failureAfterSignIn(failure: ChatErrorInfo): ChatErrorInfo {
  if (failure.code !== "not_authenticated") return failure;
  return { code: "sent_while_signed_out", status: failure.status, message: "This was sent while you were signed out. You're signed in again, so you can send it now." };
}

/** The last completed exchange (user message and its answer) before a failed turn, to carry into a new chat. */
export function lastCompletedExchange<M extends UIMessage>(messages: readonly M[]): M[] {
  const usable = messagesForUpstream(messages);
  const answerIndex = usable.findLastIndex((message) => message.role === "assistant");
  if (answerIndex < 0) return [];
  const userIndex = usable.slice(0, answerIndex).findLastIndex((message) => message.role === "user");
  return userIndex < 0 ? [] : usable.slice(userIndex, answerIndex + 1);
}
