import { describe, expect, it } from "vitest";
import type { ChatUIMessage } from "./chat-turns";
import { discardNewestVersion, showVersion, startNewVersion, versionPosition, withoutEmptyNewestVersion } from "./answer-versions";

const answer = (text: string, metadata?: ChatUIMessage["metadata"]): ChatUIMessage => ({
  id: "a1",
  role: "assistant",
  parts: text ? [{ type: "text", text }] : [],
  ...(metadata ? { metadata } : {}),
});
const streamed = (message: ChatUIMessage, text: string): ChatUIMessage => ({ ...message, parts: [{ type: "text", text }] });
const textOf = (message: ChatUIMessage) => message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");

describe("answer versions", () => {
  it("an answer that was never regenerated is version 1 of 1", () => {
    expect(versionPosition(answer("first"))).toEqual({ index: 0, count: 1 });
  });

  it("starting a new version empties the answer and keeps the old one as version 1", () => {
    const next = startNewVersion(answer("first"));
    expect(next.id).toBe("a1");
    expect(next.parts).toEqual([]);
    expect(versionPosition(next)).toEqual({ index: 1, count: 2 });
    expect(next.metadata?.versions?.before.map((version) => version.parts)).toEqual([[{ type: "text", text: "first" }]]);
  });

  it("switches between versions, and the message's parts are the version shown", () => {
    const two = streamed(startNewVersion(answer("first")), "second");
    const first = showVersion(two, 0);
    expect(textOf(first)).toBe("first");
    expect(versionPosition(first)).toEqual({ index: 0, count: 2 });
    const back = showVersion(first, 1);
    expect(textOf(back)).toBe("second");
    expect(versionPosition(back)).toEqual({ index: 1, count: 2 });
    // Out of range: unchanged.
    expect(showVersion(back, 2)).toBe(back);
    expect(showVersion(back, -1)).toBe(back);
  });

  it("a new version goes after all others, whichever one was shown", () => {
    const two = showVersion(streamed(startNewVersion(answer("first")), "second"), 0);
    const three = streamed(startNewVersion(two), "third");
    expect(versionPosition(three)).toEqual({ index: 2, count: 3 });
    expect([0, 1, 2].map((index) => textOf(showVersion(three, index)))).toEqual(["first", "second", "third"]);
  });

  it("each version keeps its own marks (an interrupted one stays interrupted)", () => {
    const two = streamed(startNewVersion(answer("cut sh", { interrupted: true })), "whole");
    expect(two.metadata?.interrupted).toBeUndefined();
    expect(showVersion(two, 0).metadata?.interrupted).toBe(true);
    expect(showVersion(showVersion(two, 0), 1).metadata?.interrupted).toBeUndefined();
  });

  it("discarding the newest version shows the one before it again", () => {
    const failed = streamed(startNewVersion(answer("first")), "half");
    const restored = discardNewestVersion(failed);
    expect(textOf(restored)).toBe("first");
    expect(versionPosition(restored)).toEqual({ index: 0, count: 1 });
    expect(discardNewestVersion(answer("only"))).toEqual(answer("only"));
  });

  it("an empty newest version (nothing arrived before a stop or a reload) gives way to the one before", () => {
    expect(textOf(withoutEmptyNewestVersion(startNewVersion(answer("first"))))).toBe("first");
    const kept = streamed(startNewVersion(answer("first")), "some");
    expect(withoutEmptyNewestVersion(kept)).toBe(kept);
    const empty = answer("");
    expect(withoutEmptyNewestVersion(empty)).toBe(empty);
  });
});
