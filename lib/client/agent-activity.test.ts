import { describe, expect, it } from "vitest";
import { agentActionText, describeAgentEvent } from "./agent-activity";

describe("describeAgentEvent", () => {
  it("says what the agent is doing in words", () => {
    expect(describeAgentEvent({ seq: 1, at: 0, type: "handoff", transcript: "Save a note" })).toBe("Asked the agent: “Save a note”");
    expect(describeAgentEvent({ seq: 2, at: 0, type: "tool.running", tool: "save_note" })).toBe("Running save_note…");
    expect(describeAgentEvent({ seq: 3, at: 0, type: "tool.pending_confirmation", tool: "save_note" })).toBe("save_note is waiting for your approval");
    expect(describeAgentEvent({ seq: 4, at: 0, type: "tool.completed", tool: "save_note", approved: false })).toBe("save_note: denied, nothing was done");
    expect(describeAgentEvent({ seq: 5, at: 0, type: "tool.completed", tool: "save_note" })).toBe("save_note: done");
    expect(describeAgentEvent({ seq: 6, at: 0, type: "tool.failed", tool: "save_note" })).toBe("save_note: failed");
    expect(describeAgentEvent({ seq: 7, at: 0, type: "session.closed" })).toBeNull();
  });
});

describe("agentActionText", () => {
  it("records a finished tool call with what was reviewed, and nothing else", () => {
    const review = { text: "water the ferns" };
    expect(agentActionText({ seq: 1, at: 0, type: "tool.completed", tool: "save_note", approved: true }, review)).toBe(
      "save_note (text: water the ferns): done",
    );
    expect(agentActionText({ seq: 2, at: 0, type: "tool.completed", tool: "save_note", approved: false }, review)).toBe(
      "save_note (text: water the ferns): denied, nothing was done",
    );
    expect(agentActionText({ seq: 3, at: 0, type: "tool.failed", tool: "get_current_time" })).toBe("get_current_time: failed");
    expect(agentActionText({ seq: 4, at: 0, type: "tool.completed", tool: "count", approved: true }, { items: [1, 2] })).toBe("count (items: [1,2]): done");
    expect(agentActionText({ seq: 5, at: 0, type: "tool.running", tool: "save_note" })).toBeNull();
    expect(agentActionText({ seq: 6, at: 0, type: "handoff", transcript: "hi" })).toBeNull();
  });
});
