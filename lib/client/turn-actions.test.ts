import { describe, expect, it } from "vitest";
import type { ChatErrorInfo } from "./chat-error";
import { failureOf, markLastTurnFailed, textOf, type ChatUIMessage } from "./chat-turns";
import { documentsOf, type AttachedDocument } from "./document-attachments";
import { isInterrupted } from "./interrupted-answers";
import {
  continueTurn,
  editTurn,
  failureShownApart,
  regenerateTurn,
  retryTurn,
  sendProblem,
  sendTurn,
  removedBy,
  settleTurn,
  type Outgoing,
  type TurnPlan,
} from "./turn-actions";

const user = (id: string, text: string): ChatUIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const answer = (id: string, text: string): ChatUIMessage => ({ id, role: "assistant", parts: [{ type: "text", text, state: "done" }] });
const image = { type: "file" as const, mediaType: "image/png", url: "data:image/png;base64,AAAA", filename: "cat.png" };
const withImage = (id: string, text: string): ChatUIMessage => ({ id, role: "user", parts: [image, { type: "text", text }] });
const failure: ChatErrorInfo = { code: "responses_request_failed", message: "The model service answered with status 500." };
const visionModel = { imagesAllowed: true, name: "Vision" };
const textModel = { imagesAllowed: false, name: "Text Only" };
const typed = (text: string, more: Partial<Outgoing> = {}): Outgoing => ({ text, images: [], documents: [], imageMode: false, picturesAvailable: true, ...more });
const notes: AttachedDocument = { name: "notes.md", kind: "text", text: "# Notes" };
const ids = (messages: readonly ChatUIMessage[]) => messages.map((message) => message.id);

const history = [user("u1", "first"), answer("a1", "one"), user("u2", "second"), answer("a2", "two")];

/** Every message of `before` is still in the plan's list (by id) or among what it removed: none is lost silently. */
function expectNothingLost(before: readonly ChatUIMessage[], plan: TurnPlan) {
  const kept = new Set([...ids(plan.messages), ...ids(plan.removed)]);
  expect(ids(before).filter((id) => !kept.has(id))).toEqual([]);
  for (const removed of plan.removed) expect(before).toContain(removed);
}

describe("send", () => {
  it("adds the question with the id it is given, as text", () => {
    const plan = sendTurn(history, typed("third"), visionModel, "u3")!;
    expect(ids(plan.messages)).toEqual([...ids(history), "u3"]);
    expect(plan.messages.at(-1)).toEqual({ id: "u3", role: "user", parts: [{ type: "text", text: "third" }] });
    expect(plan).toMatchObject({ removed: [], generateImage: false, leaveOutImages: false, continueAnswer: false });
    expect(plan.answerCall).toBeUndefined();
    expectNothingLost(history, plan);
  });

  it("puts documents first, then images, then the text; an empty text adds no part beside documents", () => {
    const plan = sendTurn([], typed("", { documents: [notes], images: [image] }), visionModel, "u1")!;
    expect(plan.messages[0]!.parts.map((part) => part.type)).toEqual(["data-document", "file"]);
    expect(documentsOf(plan.messages[0]!)).toEqual([notes]);
    const withText = sendTurn([], typed("read this", { documents: [notes] }), visionModel, "u1")!;
    expect(withText.messages[0]!.parts.map((part) => part.type)).toEqual(["data-document", "text"]);
  });

  it("sends images with the text after them, the text part there even when empty", () => {
    const plan = sendTurn([], typed("", { images: [image] }), visionModel, "u1")!;
    expect(plan.messages[0]!.parts).toEqual([image, { type: "text", text: "" }]);
  });

  it("asks for a picture with the switch on, or once with /image where pictures are available", () => {
    expect(sendTurn([], typed("a cat", { imageMode: true }), visionModel, "u1")!.generateImage).toBe(true);
    const command = sendTurn([], typed("/image a cat"), visionModel, "u1")!;
    expect(command.generateImage).toBe(true);
    expect(textOf(command.messages[0]!)).toBe("a cat");
    const asText = sendTurn([], typed("/image a cat", { picturesAvailable: false }), visionModel, "u1")!;
    expect(asText.generateImage).toBe(false);
    expect(textOf(asText.messages[0]!)).toBe("/image a cat");
  });

  it("refuses images for a model that reads text only, saying why", () => {
    expect(sendTurn([], typed("look", { images: [image] }), textModel, "u1")).toBeUndefined();
    expect(sendProblem({ images: [image] }, textModel)).toBe("The chosen model doesn't take images. Pick another model or remove the images.");
    expect(sendProblem({ images: [image] }, visionModel)).toBeUndefined();
  });

  it("with a text-only model, leaves the conversation's images out and notes it on the question", () => {
    const plan = sendTurn([withImage("u1", "see"), answer("a1", "a cat")], typed("and now?"), textModel, "u2")!;
    expect(plan.leaveOutImages).toBe(true);
    expect(plan.messages.at(-1)!.metadata).toEqual({ imagesLeftOut: { model: "Text Only", count: 1 } });
    const vision = sendTurn([withImage("u1", "see"), answer("a1", "a cat")], typed("and now?"), visionModel, "u2")!;
    expect(vision.leaveOutImages).toBe(false);
    expect(vision.messages.at(-1)!.metadata).toBeUndefined();
  });
});

describe("retry", () => {
  const failed = markLastTurnFailed([...history, user("u3", "fails"), answer("a3", "half an ans")], failure);

  it("sends the failed question again as the newest turn; the failed copy and its partial answer come back as removed", () => {
    const plan = retryTurn(failed, "u3", visionModel, "u4")!;
    expect(ids(plan.messages)).toEqual([...ids(history), "u4"]);
    expect(plan.messages.at(-1)).toEqual({ id: "u4", role: "user", parts: failed.at(-2)!.parts });
    expect(failureOf(plan.messages.at(-1)!)).toBeUndefined();
    expect(ids(plan.removed)).toEqual(["u3", "a3"]);
    expectNothingLost(failed, plan);
  });

  it("keeps the turns after a failed one where they are", () => {
    const earlierFailed = [...markLastTurnFailed([user("u1", "fails")], failure), user("u2", "next"), answer("a2", "ok")];
    const plan = retryTurn(earlierFailed, "u1", visionModel, "u3")!;
    expect(ids(plan.messages)).toEqual(["u2", "a2", "u3"]);
    expectNothingLost(earlierFailed, plan);
  });

  it("leaves the retried question's own images out for a text-only model, as its note says", () => {
    const failedWithImage = markLastTurnFailed([user("u1", "hi"), answer("a1", "hello"), withImage("u2", "see")], failure);
    const plan = retryTurn(failedWithImage, "u2", textModel, "u3")!;
    expect(plan.messages.at(-1)!.metadata).toEqual({ imagesLeftOut: { model: "Text Only", count: 1 } });
    expect(plan.leaveOutImages).toBe(true);
  });

  it("does nothing for a message that is not a question of this conversation", () => {
    expect(retryTurn(failed, "a3", visionModel, "u4")).toBeUndefined();
    expect(retryTurn(failed, "gone", visionModel, "u4")).toBeUndefined();
  });
});

describe("edit", () => {
  it("asks the edited question as a new version under a new id; the original and the turns after it are not removed", () => {
    const plan = editTurn(history, "u1", "first, edited", visionModel, "u1b")!;
    expect(ids(plan.messages)).toEqual(["u1b"]);
    expect(textOf(plan.messages[0]!)).toBe("first, edited");
    // They stay in the conversation's tree as the earlier version (lib/client/message-tree).
    expect(plan.removed).toEqual([]);
    const later = editTurn(history, "u2", "second, edited", visionModel, "u2b")!;
    expect(ids(later.messages)).toEqual(["u1", "a1", "u2b"]);
  });

  it("keeps the question's images and documents and drops an earlier failure", () => {
    const question: ChatUIMessage = { ...withImage("u1", "see"), metadata: { failure } };
    const plan = editTurn([question], "u1", "look closer", visionModel, "u1b")!;
    expect(plan.messages[0]!.parts).toEqual([image, { type: "text", text: "look closer" }]);
    expect(plan.messages[0]!.metadata).toBeUndefined();
  });

  it("does nothing for an answer", () => {
    expect(editTurn(history, "a1", "no", visionModel, "x")).toBeUndefined();
  });
});

describe("regenerate and continue", () => {
  it("regenerates as a new answer beside the last one, which stays as the earlier version", () => {
    const plan = regenerateTurn(history, "a2", visionModel, "a2b")!;
    expect(ids(plan.messages)).toEqual(["u1", "a1", "u2", "a2b"]);
    expect(plan.messages.at(-1)).toEqual({ id: "a2b", role: "assistant", parts: [] });
    expect(plan).toMatchObject({ answerCall: { kind: "regenerate", messageId: "a2b", previous: history[3] }, removed: [], continueAnswer: false });
  });

  it("only regenerates or continues the conversation's last answer", () => {
    expect(regenerateTurn(history, "a1", visionModel, "x")).toBeUndefined();
    expect(continueTurn(history, "a1", visionModel)).toBeUndefined();
    expect(regenerateTurn(history.slice(0, 3), "u2", visionModel, "x")).toBeUndefined();
  });

  it("continues an interrupted answer from its text, without the mark", () => {
    const interrupted = [...history.slice(0, 3), { ...answer("a2", "cut o"), metadata: { interrupted: true as const } }];
    const plan = continueTurn(interrupted, "a2", visionModel)!;
    expect(isInterrupted(plan.messages.at(-1)!)).toBe(false);
    expect(textOf(plan.messages.at(-1)!)).toBe("cut o");
    expect(plan).toMatchObject({ answerCall: { kind: "continue", messageId: "a2" }, continueAnswer: true, generateImage: false });
    expectNothingLost(interrupted, plan);
  });

  it("notes on the last question whether its images are left out this time", () => {
    const conversation = [withImage("u1", "see"), answer("a1", "a cat")];
    const textOnly = regenerateTurn(conversation, "a1", textModel, "a1b")!;
    expect(textOnly.leaveOutImages).toBe(true);
    expect(textOnly.messages[0]!.metadata?.imagesLeftOut).toEqual({ model: "Text Only", count: 1 });
    const noted = textOnly.messages.slice(0, 1).concat(answer("a1", "a cat"));
    const vision = regenerateTurn(noted, "a1", visionModel, "a1b")!;
    expect(vision.leaveOutImages).toBe(false);
    expect(vision.messages[0]!.metadata?.imagesLeftOut).toBeUndefined();
  });

});

describe("when the call ends", () => {
  const outcome = { answerCall: undefined, isError: false, isAbort: false, failure: undefined };

  it("a new turn that succeeded or was stopped leaves the conversation as it is", () => {
    expect(settleTurn(outcome)).toBeUndefined();
    expect(settleTurn({ ...outcome, isAbort: true })).toBeUndefined();
    expect(failureShownApart({ ...outcome, isError: true, failure })).toBeUndefined();
  });

  it("a new turn that failed is marked on its question, its empty answer dropped for good", () => {
    const before = [...history.slice(0, 3), { id: "a2", role: "assistant" as const, parts: [] }];
    const settled = settleTurn({ ...outcome, isError: true, failure })!(before);
    expect(ids(settled)).toEqual(["u1", "a1", "u2"]);
    expect(failureOf(settled[2]!)).toEqual(failure);
    expect(removedBy(before, settled)).toEqual(["a2"]);
  });

  it("a failed regenerate gives way to the version before, the new one dropped for good, and the failure is said apart", () => {
    const regenerating = regenerateTurn(history, "a2", visionModel, "a2b")!;
    const failed = { answerCall: regenerating.answerCall, isError: true, isAbort: false, failure };
    const settled = settleTurn(failed)!(regenerating.messages);
    expect(settled.at(-1)).toBe(history.at(-1));
    expect(removedBy(regenerating.messages, settled)).toEqual(["a2b"]);
    expect(failureOf(settled[2]!)).toBeUndefined();
    expect(failureShownApart(failed)).toEqual(failure);
  });

  it("a stopped regenerate keeps what arrived, or the version before when nothing did", () => {
    const regenerating = regenerateTurn(history, "a2", visionModel, "a2b")!;
    const stopped = { answerCall: regenerating.answerCall, isError: false, isAbort: true, failure: undefined };
    expect(settleTurn(stopped)!(regenerating.messages).at(-1)).toBe(history.at(-1));
    const someText = [...regenerating.messages.slice(0, -1), { ...regenerating.messages.at(-1)!, parts: [{ type: "text" as const, text: "dos" }] }];
    const kept = settleTurn(stopped)!(someText).at(-1)!;
    expect(textOf(kept)).toBe("dos");
    expect(kept.id).toBe("a2b");
    expect(failureShownApart(stopped)).toBeUndefined();
  });

  it("a failed continuation stays interrupted, with its text", () => {
    const continuing = continueTurn([...history.slice(0, 3), { ...answer("a2", "cut o"), metadata: { interrupted: true } }], "a2", visionModel)!;
    const failed = { answerCall: continuing.answerCall, isError: true, isAbort: false, failure };
    const settled = settleTurn(failed)!([...continuing.messages.slice(0, -1), { ...continuing.messages.at(-1)!, parts: [{ type: "text", text: "cut off here" }] }]);
    expect(isInterrupted(settled.at(-1)!)).toBe(true);
    expect(textOf(settled.at(-1)!)).toBe("cut off here");
    expect(failureShownApart(failed)).toEqual(failure);
  });
});
