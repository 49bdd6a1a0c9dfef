import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatUIMessage } from "./chat-turns";
import { isInterrupted } from "./interrupted-answers";
import { ANSWER_SAVE_INTERVAL_MS, createConversationSaver, DRAFT_SAVE_DELAY_MS, type ConversationPersistence } from "./conversation-saver";

const user = (id: string, text: string): ChatUIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const answer = (id: string, text: string): ChatUIMessage => ({ id, role: "assistant", parts: [{ type: "text", text, state: "streaming" }] });

/** A persistence that records what it was asked to keep. */
function recorder() {
  const saved: { kind: "messages" | "draft"; conversationId: string; value: ChatUIMessage[] | string }[] = [];
  const persistence: ConversationPersistence = {
    saveMessages: (conversationId, messages) => saved.push({ kind: "messages", conversationId, value: messages }),
    removeMessages: () => {},
    saveDraft: (conversationId, text) => saved.push({ kind: "draft", conversationId, value: text }),
  };
  return { saved, persistence };
}

const loaded = { messages: [user("u1", "hi"), answer("a1", "hello")], draft: "half a thought" };

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("keeping an open conversation", () => {
  it("saves nothing for merely opening it", () => {
    const { saved, persistence } = recorder();
    const saver = createConversationSaver(persistence, "c1", loaded);
    saver.messagesChanged(loaded.messages, "ready");
    saver.draftChanged(loaded.draft);
    vi.runAllTimers();
    expect(saved).toEqual([]);
  });

  it("saves nothing for messages that came from the kept copy, and saves the next change of this tab", () => {
    const { saved, persistence } = recorder();
    const saver = createConversationSaver(persistence, "c1", loaded);
    const fromElsewhere = [...loaded.messages, user("u2", "asked on the phone")];
    saver.adopt(fromElsewhere);
    // The chat shows a copy of the list (useChat copies it), holding the same messages.
    saver.messagesChanged([...fromElsewhere], "ready");
    expect(saved).toEqual([]);
    const mine = [...fromElsewhere, user("u3", "asked here")];
    saver.messagesChanged(mine, "ready");
    expect(saved).toEqual([{ kind: "messages", conversationId: "c1", value: mine }]);
  });

  it("saves when a turn starts and when it settles, not on every streamed word", () => {
    const { saved, persistence } = recorder();
    const saver = createConversationSaver(persistence, "c1", loaded);
    const asked = [...loaded.messages, user("u2", "more?")];
    saver.messagesChanged(asked, "submitted");
    expect(saved).toEqual([{ kind: "messages", conversationId: "c1", value: asked }]);
    for (const text of ["a", "an", "ans"]) saver.messagesChanged([...asked, answer("a2", text)], "streaming");
    const done = [...asked, answer("a2", "answer")];
    saver.messagesChanged(done, "ready");
    expect(saved).toHaveLength(2);
    expect(saved[1]!.value).toBe(done);
    vi.runAllTimers();
    expect(saved).toHaveLength(2);
  });

  it("while an answer streams, keeps the latest text once an interval, marked interrupted", () => {
    const { saved, persistence } = recorder();
    const saver = createConversationSaver(persistence, "c1", loaded);
    saver.messagesChanged([...loaded.messages, user("u2", "more?"), answer("a2", "so")], "streaming");
    saver.messagesChanged([...loaded.messages, user("u2", "more?"), answer("a2", "so far")], "streaming");
    expect(saved).toEqual([]);
    vi.advanceTimersByTime(ANSWER_SAVE_INTERVAL_MS);
    expect(saved).toHaveLength(1);
    const kept = saved[0]!.value as ChatUIMessage[];
    expect(kept.at(-1)!.parts).toEqual([{ type: "text", text: "so far", state: "done" }]);
    expect(isInterrupted(kept.at(-1)!)).toBe(true);
  });

  it("keeps the answer so far at once when the page goes away or the conversation closes", () => {
    const { saved, persistence } = recorder();
    const saver = createConversationSaver(persistence, "c1", loaded);
    saver.messagesChanged([...loaded.messages, user("u2", "more?"), answer("a2", "so")], "streaming");
    saver.flush();
    expect(saved).toHaveLength(1);
    saver.messagesChanged([...loaded.messages, user("u2", "more?"), answer("a2", "so far")], "streaming");
    saver.close();
    expect(saved).toHaveLength(2);
    expect(isInterrupted((saved[1]!.value as ChatUIMessage[]).at(-1)!)).toBe(true);
  });

  it("saves the draft once typing pauses, only when it changed", () => {
    const { saved, persistence } = recorder();
    const saver = createConversationSaver(persistence, "c1", loaded);
    saver.draftChanged("h");
    vi.advanceTimersByTime(DRAFT_SAVE_DELAY_MS - 1);
    saver.draftChanged("hello");
    vi.advanceTimersByTime(DRAFT_SAVE_DELAY_MS - 1);
    expect(saved).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(saved).toEqual([{ kind: "draft", conversationId: "c1", value: "hello" }]);
    saver.draftChanged("hello!");
    saver.draftChanged("hello");
    vi.runAllTimers();
    expect(saved).toHaveLength(1);
  });
});
