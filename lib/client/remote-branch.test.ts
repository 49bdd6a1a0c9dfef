import { describe, expect, it } from "vitest";
import type { ChatUIMessage } from "./chat-turns";
import { failureOf } from "./chat-turns";
import type { MessageTree } from "./message-tree";
import { branchAfterRemoteChange } from "./remote-branch";

const user = (id: string, text = id): ChatUIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const answer = (id: string, text = id): ChatUIMessage => ({ id, role: "assistant", parts: [{ type: "text", text }] });
const ids = (messages: readonly ChatUIMessage[]) => messages.map((message) => message.id);
const textAt = (messages: readonly ChatUIMessage[], index: number) => (messages[index]!.parts[0] as { text: string }).text;

function tree(rows: [ChatUIMessage, string | null, number][], removed: [string, string | null][] = []): MessageTree {
  return { nodes: new Map(rows.map(([message, parentId, rev]) => [message.id, { message, link: { parentId, createdAt: rev, rev } }])), removed: new Map(removed) };
}

describe("an open conversation changed elsewhere", () => {
  it("shows what another tab added after it, with the answer as it grows there", () => {
    const kept = tree([
      [user("q1"), null, 1],
      [answer("a1"), "q1", 2],
      [user("q2"), "a1", 3],
      [answer("a2", "half an answ"), "q2", 4],
    ]);
    const { path } = branchAfterRemoteChange(kept, [user("q1"), answer("a1")], new Map());
    expect(ids(path)).toEqual(["q1", "a1", "q2", "a2"]);
    expect(textAt(path, 3)).toBe("half an answ");
  });

  it("keeps this tab's newer change of a message, and takes the kept one when it is newer", () => {
    const kept = tree([
      [user("q1"), null, 1],
      [answer("a1", "kept at 50"), "q1", 50],
    ]);
    const mine = [user("q1"), answer("a1", "changed here at 60")];
    expect(textAt(branchAfterRemoteChange(kept, mine, new Map([["a1", 60]])).path, 1)).toBe("changed here at 60");
    expect(textAt(branchAfterRemoteChange(kept, mine, new Map([["a1", 40]])).path, 1)).toBe("kept at 50");
    // Not changed here at all (say, only marked on screen after a reload): the kept one.
    expect(textAt(branchAfterRemoteChange(kept, mine, new Map()).path, 1)).toBe("kept at 50");
  });

  it("a question still waiting for its answer elsewhere shows as failed only until the answer arrives", () => {
    const waiting = tree([[user("q1"), null, 1]]);
    const before = branchAfterRemoteChange(waiting, [], new Map()).path;
    expect(failureOf(before[0]!)).toBeDefined();
    const answered = tree([
      [user("q1"), null, 1],
      [answer("a1"), "q1", 2],
    ]);
    const after = branchAfterRemoteChange(answered, before, new Map()).path;
    expect(ids(after)).toEqual(["q1", "a1"]);
    expect(failureOf(after[0]!)).toBeUndefined();
  });

  it("drops a message deleted elsewhere, and keeps one not kept yet", () => {
    const kept = tree([[user("q1"), null, 1]], [["a1", "q1"]]);
    const { path, tree: merged } = branchAfterRemoteChange(kept, [user("q1"), answer("a1"), user("q2"), answer("a2")], new Map([["q2", 5], ["a2", 6]]));
    expect(ids(path)).toEqual(["q1", "q2", "a2"]);
    expect(merged.nodes.get("q2")?.link.parentId).toBe("q1");
  });

  it("keeps the version shown when another tab made a new one", () => {
    const kept = tree([
      [user("q1"), null, 1],
      [answer("a1"), "q1", 2],
      [answer("a1b"), "q1", 3],
    ]);
    expect(ids(branchAfterRemoteChange(kept, [user("q1"), answer("a1")], new Map()).path)).toEqual(["q1", "a1"]);
  });
});
