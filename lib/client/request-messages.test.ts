import { describe, expect, it } from "vitest";
import { markLastTurnFailed, type ChatUIMessage } from "./chat-turns";
import { CONTINUE_INSTRUCTION, imagesSentWith, messagesToSend, withImagesLeftOutNote } from "./request-messages";

const image = { type: "file" as const, mediaType: "image/png", url: "data:image/png;base64,AAAA", filename: "chart.png" };
const user = (id: string, text: string, withImages = 0): ChatUIMessage => ({
  id,
  role: "user",
  parts: [...Array.from({ length: withImages }, () => image), ...(text ? [{ type: "text" as const, text }] : [])],
});
const answer = (id: string, text: string): ChatUIMessage => ({ id, role: "assistant", parts: [{ type: "text", text }] });

describe("messagesToSend", () => {
  const history = [user("u1", "what is this?", 2), answer("a1", "a chart"), user("u2", "and now?")];

  it("sends the conversation as it is by default", () => {
    expect(messagesToSend(history, {})).toEqual(history);
  });

  it("leaves the images out for a model that reads text only, and a message of images only altogether", () => {
    const sent = messagesToSend([user("u0", "", 1), answer("a0", "nice"), ...history], { leaveOutImages: true });
    expect(sent.map((message) => message.id)).toEqual(["a0", "u1", "a1", "u2"]);
    expect(sent.find((message) => message.id === "u1")!.parts).toEqual([{ type: "text", text: "what is this?" }]);
    expect(imagesSentWith(sent)).toBe(0);
  });

  it("counts the images that would be sent (failed turns are not sent)", () => {
    expect(imagesSentWith(history)).toBe(2);
    expect(imagesSentWith([...history, ...markLastTurnFailed([user("u3", "this fails", 1)], { code: "network_error", message: "" })])).toBe(2);
  });

  it("asks the model to carry on after an interrupted answer", () => {
    const sent = messagesToSend([user("u1", "tell me a long story"), answer("a1", "Once upon a ti")], { continueAnswer: true });
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(sent.at(-2)!.parts).toEqual([{ type: "text", text: "Once upon a ti" }]);
    expect(sent.at(-1)!.parts).toEqual([{ type: "text", text: CONTINUE_INSTRUCTION }]);
  });

  it("adds nothing to continue when the conversation does not end in an answer", () => {
    expect(messagesToSend(history, { continueAnswer: true })).toEqual(history);
  });
});

describe("withImagesLeftOutNote", () => {
  const history = [user("u1", "what is this?", 1), answer("a1", "a chart"), user("u2", "and now?")];

  it("notes on the turn's question that its model got the conversation without images", () => {
    const noted = withImagesLeftOutNote(history, "u2", { model: "Text Model", count: 1 });
    expect(noted.at(-1)!.metadata?.imagesLeftOut).toEqual({ model: "Text Model", count: 1 });
    expect(noted.slice(0, 2)).toEqual(history.slice(0, 2));
  });

  it("takes the note away when the turn is answered again with its images", () => {
    const noted = withImagesLeftOutNote(history, "u2", { model: "Text Model", count: 1 });
    const cleared = withImagesLeftOutNote(noted, "u2", undefined);
    expect(cleared.at(-1)!.metadata).toEqual({});
  });
});
