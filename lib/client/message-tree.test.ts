import { describe, expect, it } from "vitest";
import type { ChatUIMessage } from "./chat-turns";
import { branchPath, EMPTY_TREE, sameBranch, showVersion, treeFromLinear, versionPositions, withoutMessages, withPath, type MessageTree } from "./message-tree";

const user = (id: string, text = id): ChatUIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const answer = (id: string, text = id): ChatUIMessage => ({ id, role: "assistant", parts: [{ type: "text", text }] });
const ids = (messages: readonly ChatUIMessage[]) => messages.map((message) => message.id);

/** A tree from [message, parent, createdAt] rows. */
function tree(rows: [ChatUIMessage, string | null, number][]): MessageTree {
  return { nodes: new Map(rows.map(([message, parentId, createdAt]) => [message.id, { message, link: { parentId, createdAt, rev: createdAt } }])), removed: new Map() };
}

describe("the branch shown", () => {
  const branched = tree([
    [user("q1"), null, 1],
    [answer("a1"), "q1", 2],
    [user("q2"), "a1", 3],
    [answer("a2"), "q2", 4],
    [user("q2b"), "a1", 5],
    [answer("a2b"), "q2b", 6],
  ]);

  it("follows the branch shown so far, and the newest version where it has none", () => {
    expect(ids(branchPath(branched, ["q1", "a1", "q2", "a2"]))).toEqual(["q1", "a1", "q2", "a2"]);
    expect(ids(branchPath(branched, []))).toEqual(["q1", "a1", "q2b", "a2b"]);
  });

  it("goes on with what another device added after the branch's last message", () => {
    const added = tree([
      [user("q1"), null, 1],
      [answer("a1"), "q1", 2],
      [user("q2"), "a1", 3],
      [answer("a2"), "q2", 4],
    ]);
    expect(ids(branchPath(added, ["q1", "a1"]))).toEqual(["q1", "a1", "q2", "a2"]);
  });

  it("says which version each message of the branch is, oldest first", () => {
    const path = branchPath(branched, ["q1", "a1", "q2", "a2"]);
    expect(Object.fromEntries(versionPositions(branched, path, 10))).toEqual({ q2: { index: 0, count: 2 } });
  });

  it("switches to another version with what follows it", () => {
    const path = branchPath(branched, ["q1", "a1", "q2", "a2"]);
    expect(ids(showVersion(branched, path, "q2", 1, 10))).toEqual(["q1", "a1", "q2b", "a2b"]);
    expect(ids(showVersion(branched, path, "q2", 5, 10))).toEqual(ids(path));
  });

  it("counts a version made on screen and not kept yet", () => {
    const path = [user("q1"), answer("a1"), user("q2c")];
    expect(versionPositions(branched, path, 10).get("q2c")).toEqual({ index: 2, count: 3 });
  });

  it("does not count an answer still empty with nothing after it as a version", () => {
    const withHollow = tree([
      [user("q1"), null, 1],
      [answer("a1"), "q1", 2],
      [{ id: "a1b", role: "assistant", parts: [{ type: "step-start" }] }, "q1", 3],
    ]);
    expect(ids(branchPath(withHollow, []))).toEqual(["q1", "a1"]);
    expect(versionPositions(withHollow, [user("q1"), answer("a1")], 10).size).toBe(0);
  });
});

describe("deleted messages", () => {
  const linear = tree([
    [user("q1"), null, 1],
    [answer("a1"), "q1", 2],
    [user("failed"), "a1", 3],
    [user("q3"), "failed", 4],
    [answer("a3"), "q3", 5],
  ]);

  it("what followed a deleted message follows its parent", () => {
    const without = withoutMessages(linear, ["failed"]);
    expect(ids(branchPath(without, ["q1", "a1", "q3", "a3"]))).toEqual(["q1", "a1", "q3", "a3"]);
  });

  it("a parent never seen here gives way to the newest message made before", () => {
    const orphaned = tree([
      [user("q1"), null, 1],
      [answer("a1"), "q1", 2],
      [user("q3"), "gone-before-sync", 4],
      [answer("a3"), "q3", 5],
    ]);
    expect(ids(branchPath(orphaned, []))).toEqual(["q1", "a1", "q3", "a3"]);
  });

  it("a deleted message on the branch is not brought back by the branch on screen", () => {
    const without = withoutMessages(linear, ["a3"]);
    const again = withPath(without, branchPath(linear, []), 10);
    expect(again.nodes.has("a3")).toBe(false);
  });
});

describe("a conversation kept before messages had parents", () => {
  it("becomes a line, with an answer's versions beside it and the shown one in the branch", () => {
    const regenerated: ChatUIMessage = {
      id: "a1",
      role: "assistant",
      parts: [{ type: "text", text: "second" }],
      metadata: { model: "m", versions: { before: [{ parts: [{ type: "text", text: "first" }], metadata: { interrupted: true } }], after: [] } },
    };
    const { tree: converted, path } = treeFromLinear([user("q1"), regenerated, user("q2")], 1000);
    expect(ids(path)).toEqual(["q1", "a1", "q2"]);
    expect(path[1]!.metadata).toEqual({ model: "m" });
    expect(converted.nodes.get("a1.v0")).toMatchObject({ message: { parts: [{ type: "text", text: "first" }], metadata: { interrupted: true } }, link: { parentId: "q1" } });
    expect(versionPositions(converted, path, 0).get("a1")).toEqual({ index: 1, count: 2 });
    // The same conversation read twice gives the same ids.
    expect([...treeFromLinear([user("q1"), regenerated], 1000).tree.nodes.keys()]).toEqual(["q1", "a1.v0", "a1"]);
  });
});

describe("comparing branches", () => {
  it("compares content, not objects", () => {
    expect(sameBranch([user("q1", "x")], [user("q1", "x")])).toBe(true);
    expect(sameBranch([user("q1", "x")], [user("q1", "y")])).toBe(false);
    expect(sameBranch([user("q1")], [])).toBe(false);
    expect(branchPath(EMPTY_TREE, ["x"])).toEqual([]);
  });
});
