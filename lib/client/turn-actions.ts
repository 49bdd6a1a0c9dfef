import type { ChatErrorInfo } from "./chat-error";
import { markLastTurnFailed, messageMetadata, type ChatUIMessage, type ImagesLeftOut } from "./chat-turns";
import { documentPart, type AttachedDocument } from "./document-attachments";
import { withoutInterruptedMark } from "./interrupted-answers";
import { nothingArrived } from "./message-tree";
import { imagesSentWith, withImagesLeftOutNote } from "./request-messages";

/**
 * The chat's turn actions as pure functions over the message list: send, retry, edit, regenerate
 * and continue each return the conversation as the call starts and what the call asks for; the
 * caller shows that list and streams the answer into it (useChat's `sendMessage()` without a
 * message answers the last message). The conversation is a tree (lib/client/message-tree): an edit
 * or a regenerate is a new message beside the one it replaces, which stays (with what followed it)
 * as another version; what an action takes out for good (a retried turn's old copy) comes back in
 * `removed`, so the history deletes it rather than losing it silently.
 */

/** What the chosen model means for a turn. */
export interface TurnModel {
  /** The chosen model takes images; otherwise the conversation's images are left out of the call. */
  imagesAllowed: boolean;
  /** Its name as the picker shows it (the note on a question whose images were left out). */
  name: string;
}

/** A call that works on an answer already on screen rather than adding a turn. */
export interface AnswerCall {
  kind: "regenerate" | "continue";
  messageId: string;
  /** Regenerate: the version on screen before, shown again when the new one fails or gets nothing. */
  previous?: ChatUIMessage;
}

export interface TurnPlan {
  /** The conversation as the call starts: on screen while it streams, and what the request carries. */
  messages: ChatUIMessage[];
  /** Messages the action took out for good (a retried turn's old copy): the history deletes them. */
  removed: ChatUIMessage[];
  /** Regenerate and Continue stream into this answer; how the call ends decides what stays (settleTurn). */
  answerCall?: AnswerCall;
  /** Ask for a picture (the image_generation tool). */
  generateImage: boolean;
  /** The model reads text only: the conversation's images stay out of the request. */
  leaveOutImages: boolean;
  /** Carry on the last (interrupted) answer instead of answering the last question. */
  continueAnswer: boolean;
}

/** How many images a text-only model leaves out of these messages, as the note on the question says it. */
function imagesNote(messages: readonly ChatUIMessage[], model: TurnModel): ImagesLeftOut | undefined {
  const count = model.imagesAllowed ? 0 : imagesSentWith(messages);
  return count > 0 ? { model: model.name, count } : undefined;
}

type PlanDetails = Pick<TurnPlan, "removed"> & Partial<Pick<TurnPlan, "answerCall" | "generateImage" | "continueAnswer">>;

/**
 * A new question at the end of `before`, as the person sends it: fresh metadata (nothing of an
 * earlier failure), noting when a text-only model leaves the conversation's images out.
 */
function askQuestion(before: ChatUIMessage[], id: string, parts: ChatUIMessage["parts"], model: TurnModel, details: PlanDetails): TurnPlan {
  const note = imagesNote([...before, { id, role: "user", parts }], model);
  const asked: ChatUIMessage = { id, role: "user", parts, ...(note ? { metadata: { imagesLeftOut: note } } : {}) };
  return { generateImage: false, continueAnswer: false, ...details, messages: [...before, asked], leaveOutImages: note !== undefined };
}

/** A call into the last answer: the last question's note says whether the images are left out this time. */
function answerAgain(messages: ChatUIMessage[], model: TurnModel, details: PlanDetails): TurnPlan {
  const note = imagesNote(messages, model);
  const lastQuestion = messages.findLast((message) => message.role === "user");
  return {
    generateImage: false,
    continueAnswer: false,
    ...details,
    messages: lastQuestion ? withImagesLeftOutNote(messages, lastQuestion.id, note) : messages,
    leaveOutImages: note !== undefined,
  };
}

/** What the message box holds when the person sends it. */
export interface Outgoing {
  /** The text as typed (`/image <prompt>` asks for a picture when pictures are available). */
  text: string;
  /** Images attached (already checked and shrunk). */
  images: ChatUIMessage["parts"];
  documents: AttachedDocument[];
  /** The "make a picture" switch is on. */
  imageMode: boolean;
  /** False where pictures cannot be made: `/image …` is then sent as text. */
  picturesAvailable: boolean;
}

const IMAGE_COMMAND = /^\/image\s+/i;

/** Why a message cannot go out as it is, in words, or undefined. */
export function sendProblem(outgoing: Pick<Outgoing, "images">, model: TurnModel): string | undefined {
  if (outgoing.images.length > 0 && !model.imagesAllowed) return "The chosen model doesn't take images. Pick another model or remove the images.";
  return undefined;
}

/**
 * Sends a new question: documents first (the model reads them before the question), then images,
 * then the text. Undefined when it cannot go out as it is (see sendProblem).
 */
export function sendTurn(messages: readonly ChatUIMessage[], outgoing: Outgoing, model: TurnModel, newId: string): TurnPlan | undefined {
  if (sendProblem(outgoing, model)) return undefined;
  const command = outgoing.picturesAvailable ? IMAGE_COMMAND.exec(outgoing.text) : null;
  const text = command ? outgoing.text.slice(command[0].length) : outgoing.text;
  const documentParts = outgoing.documents.map(documentPart);
  // With documents an empty text adds no part; with images only, the text part is there even when empty.
  const parts: ChatUIMessage["parts"] =
    documentParts.length > 0
      ? [...documentParts, ...outgoing.images, ...(text ? [{ type: "text" as const, text }] : [])]
      : [...outgoing.images, { type: "text", text }];
  return askQuestion([...messages], newId, parts, model, { removed: [], generateImage: outgoing.imageMode || command !== null });
}

/** Sends a failed turn's question again, as the newest turn; the failed copy (and its partial answer) goes. */
export function retryTurn(messages: readonly ChatUIMessage[], userMessageId: string, model: TurnModel, newId: string): TurnPlan | undefined {
  const start = messages.findIndex((message) => message.id === userMessageId);
  const failed = messages[start];
  if (!failed || failed.role !== "user") return undefined;
  let end = start + 1;
  while (end < messages.length && messages[end]!.role !== "user") end += 1;
  const remaining = [...messages.slice(0, start), ...messages.slice(end)];
  return askQuestion(remaining, newId, failed.parts, model, { removed: messages.slice(start, end) });
}

/**
 * Asks an edited question (its images and documents stay) as a new version beside the original,
 * which stays with the turns after it: the branch shown is the new one.
 */
export function editTurn(messages: readonly ChatUIMessage[], userMessageId: string, text: string, model: TurnModel, newId: string): TurnPlan | undefined {
  const index = messages.findIndex((message) => message.id === userMessageId);
  const original = messages[index];
  if (!original || original.role !== "user") return undefined;
  const otherParts = original.parts.filter((part) => part.type !== "text");
  return askQuestion(messages.slice(0, index), newId, [...otherParts, { type: "text", text }], model, { removed: [] });
}

/** The answer a call may stream into: the conversation's last message, an answer. */
function lastAnswer(messages: readonly ChatUIMessage[], answerId: string): ChatUIMessage | undefined {
  const last = messages.at(-1);
  return last?.id === answerId && last.role === "assistant" ? last : undefined;
}

/** Answers the last question again as a new answer beside the last one, which stays as an earlier version. */
export function regenerateTurn(messages: readonly ChatUIMessage[], answerId: string, model: TurnModel, newId: string): TurnPlan | undefined {
  const answer = lastAnswer(messages, answerId);
  if (!answer) return undefined;
  const fresh: ChatUIMessage = { id: newId, role: "assistant", parts: [] };
  return answerAgain([...messages.slice(0, -1), fresh], model, { removed: [], answerCall: { kind: "regenerate", messageId: newId, previous: answer } });
}

/** Asks the model to carry on an interrupted answer from its saved text. */
export function continueTurn(messages: readonly ChatUIMessage[], answerId: string, model: TurnModel): TurnPlan | undefined {
  if (!lastAnswer(messages, answerId)) return undefined;
  return answerAgain(withoutInterruptedMark(messages, answerId), model, {
    removed: [],
    answerCall: { kind: "continue", messageId: answerId },
    continueAnswer: true,
  });
}

/** How a turn's call ended. */
interface TurnOutcome {
  /** Set when the call regenerated or continued an answer on screen. */
  answerCall: AnswerCall | undefined;
  isError: boolean;
  isAbort: boolean;
  /** What went wrong, decoded from the stream's error; undefined when the call did not fail or said nothing. */
  failure: ChatErrorInfo | undefined;
}

/**
 * What the end of a call does to the conversation, or undefined when it leaves it as it is (a new
 * turn that succeeded or was stopped). A failed new turn is marked on its question (to retry, edit
 * or remove). The answer being regenerated or continued keeps what it had: a failed new version
 * gives way to the one before (so does a stopped one that got nothing), a failed continuation
 * stays interrupted. A message the update drops is gone for good (see removedBy).
 */
export function settleTurn(outcome: TurnOutcome): ((messages: ChatUIMessage[]) => ChatUIMessage[]) | undefined {
  const { answerCall, isError, isAbort, failure } = outcome;
  if (!answerCall) return isError && failure ? (messages) => markLastTurnFailed(messages, failure) : undefined;
  const settle = (answer: ChatUIMessage): ChatUIMessage => {
    if (answerCall.kind === "regenerate") {
      const { previous } = answerCall;
      return previous && (isError || (isAbort && nothingArrived(answer))) ? previous : answer;
    }
    return isError ? { ...answer, metadata: { ...messageMetadata(answer), interrupted: true } } : answer;
  };
  return (messages) => messages.map((message) => (message.id === answerCall.messageId ? settle(message) : message));
}

/** The messages of `before` that `after` no longer holds: what a settled call dropped for good. */
export function removedBy(before: readonly ChatUIMessage[], after: readonly ChatUIMessage[]): string[] {
  const kept = new Set(after.map((message) => message.id));
  return before.filter((message) => !kept.has(message.id)).map((message) => message.id);
}

/**
 * The failure said apart from the messages: a failed regenerate or continue leaves the answer as it
 * was, so the failure is shown once under it rather than marked on the question.
 */
export function failureShownApart(outcome: TurnOutcome): ChatErrorInfo | undefined {
  return outcome.answerCall && outcome.isError ? outcome.failure : undefined;
}
