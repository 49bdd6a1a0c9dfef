import { describe, expect, it } from "vitest";
import { failureOf, type ChatUIMessage } from "./chat-turns";
import { interruptedSnapshot, isInterrupted, messagesAfterReload, withoutInterruptedMark } from "./interrupted-answers";

const user = (id: string, text: string): ChatUIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const answer = (id: string, text: string): ChatUIMessage => ({ id, role: "assistant", parts: [{ type: "text", text, state: "done" }] });

const streaming: ChatUIMessage = {
  id: "a2",
  role: "assistant",
  parts: [
    { type: "reasoning", text: "Thinking about it", state: "done", providerMetadata: { openai: { itemId: "rs_1", reasoningEncryptedContent: "gAAA" } } },
    { type: "reasoning", text: "half a thou", state: "streaming", providerMetadata: { openai: { itemId: "rs_2" } } },
    { type: "text", text: "The answer so f", state: "streaming" },
  ],
};

describe("an answer saved while it streams", () => {
  it("is saved marked interrupted, its text as far as it came, settled", () => {
    const history = [user("u1", "hi"), answer("a1", "hello"), user("u2", "long one"), streaming];
    const saved = interruptedSnapshot(history);
    expect(saved.slice(0, 3)).toEqual(history.slice(0, 3));
    const last = saved.at(-1)!;
    expect(isInterrupted(last)).toBe(true);
    expect(last.parts).toEqual([
      streaming.parts[0],
      // Reasoning cut short carries no encrypted content, which the backend would need to take it back.
      { type: "text", text: "The answer so f", state: "done" },
    ]);
    // The live messages are not touched: the finished answer is saved without the mark.
    expect(isInterrupted(history.at(-1)!)).toBe(false);
  });

  it("leaves a conversation that does not end in an answer as it is", () => {
    const history = [user("u1", "hi")];
    expect(interruptedSnapshot(history)).toEqual(history);
  });

  it("loses its mark when it is continued", () => {
    const saved = interruptedSnapshot([user("u1", "hi"), streaming]);
    const continued = withoutInterruptedMark(saved, "a2");
    expect(isInterrupted(continued.at(-1)!)).toBe(false);
    expect(continued.at(-1)!.parts).toEqual(saved.at(-1)!.parts);
  });
});

describe("a conversation read back after a reload", () => {
  it("shows a question that got no answer at all as a failed turn", () => {
    const restored = messagesAfterReload([user("u1", "hi"), answer("a1", "hello"), user("u2", "no answer")]);
    expect(failureOf(restored.at(-1)!)).toMatchObject({ code: "stream_failed" });
    expect(failureOf(restored[0]!)).toBeUndefined();
  });

  it("keeps an interrupted answer with its text", () => {
    const saved = interruptedSnapshot([user("u1", "hi"), streaming]);
    expect(messagesAfterReload(saved)).toEqual(saved);
  });

  it("shows a question whose answer was saved before its first word as a failed turn, without the empty answer", () => {
    const emptyAnswer: ChatUIMessage = { id: "a2", role: "assistant", parts: [{ type: "step-start" }] };
    const restored = messagesAfterReload(interruptedSnapshot([user("u1", "hi"), answer("a1", "hello"), user("u2", "no answer yet"), emptyAnswer]));
    expect(restored.map((message) => message.id)).toEqual(["u1", "a1", "u2"]);
    expect(failureOf(restored.at(-1)!)).toMatchObject({ code: "stream_failed" });
    // Saved when the turn started, before the stream: the empty answer carries no mark.
    const unmarked = messagesAfterReload([user("u1", "hi"), { id: "a1", role: "assistant", parts: [] }]);
    expect(unmarked.map((message) => message.id)).toEqual(["u1"]);
    expect(failureOf(unmarked[0]!)).toMatchObject({ code: "stream_failed" });
  });

});
