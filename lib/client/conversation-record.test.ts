import { describe, expect, it } from "vitest";
import type { ChatUIMessage } from "./chat-turns";
import { applyRemote, mergeLocalSave, treeOfConversation, type LocalSave, type RemoteConversation } from "./conversation-record";
import type { Conversation } from "./conversation-store";

const user = (id: string, text = id): ChatUIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const answer = (id: string, text = id): ChatUIMessage => ({ id, role: "assistant", parts: [{ type: "text", text }] });
const ids = (messages: readonly ChatUIMessage[]) => messages.map((message) => message.id);
const where = { accountId: "acct", id: "c1" };

function save(path: ChatUIMessage[], extra: Partial<LocalSave> = {}): LocalSave {
  return { path, title: "x", titleEdited: false, createdAt: 1, removedIds: [], ...extra };
}

/** Saves one after another, as tabs sharing one browser's copy do. */
function saved(stored: Conversation | undefined, path: ChatUIMessage[], now: number, extra: Partial<LocalSave> = {}): Conversation {
  const merged = mergeLocalSave(stored, where, save(path, extra), now);
  if (!merged) throw new Error("nothing changed");
  return merged.conversation;
}

describe("a tab's save", () => {
  it("keeps a new conversation as a tree, titled by its first question, all of it to send", () => {
    const merged = mergeLocalSave(undefined, where, save([user("q1", "Plan a trip\nto Kyoto"), answer("a1")]), 100);
    expect(merged?.changes).toEqual({ messages: ["q1", "a1"], deletedMessages: [], conversation: true });
    expect(merged?.conversation).toMatchObject({ id: "c1", accountId: "acct", title: "Plan a trip", links: { q1: { parentId: null, rev: 100 }, a1: { parentId: "q1" } } });
  });

  it("two tabs writing one conversation both keep their turns", () => {
    const start = saved(undefined, [user("q1"), answer("a1")], 100);
    // Tab A adds a turn; tab B, which has not seen it yet, adds its own.
    const afterA = saved(start, [user("q1"), answer("a1"), user("qA"), answer("aA")], 200);
    const afterB = saved(afterA, [user("q1"), answer("a1"), user("qB"), answer("aB")], 300);
    const { tree, path } = treeOfConversation(afterB);
    expect(ids(path)).toEqual(["q1", "a1", "qB", "aB"]);
    expect([...tree.nodes.keys()].sort()).toEqual(["a1", "aA", "aB", "q1", "qA", "qB"]);
    expect(tree.nodes.get("qA")?.link.parentId).toBe("a1");
  });

  it("a branch saved before another tab's later turns follows them", () => {
    const start = saved(undefined, [user("q1"), answer("a1")], 100);
    const afterA = saved(start, [user("q1"), answer("a1"), user("q2"), answer("a2")], 200);
    // Tab B still shows only the first turn; its save changes nothing of A's.
    expect(mergeLocalSave(afterA, where, save([user("q1"), answer("a1")]), 300)).toBeUndefined();
  });

  it("an edit keeps the earlier branch; a streamed answer grows by rev", () => {
    const start = saved(undefined, [user("q1"), answer("a1", "par")], 100);
    const grown = mergeLocalSave(start, where, save([user("q1"), answer("a1", "partial")]), 100);
    expect(grown?.changes.messages).toEqual(["a1"]);
    expect(grown?.conversation.links?.a1?.rev).toBe(101);
    const edited = saved(grown!.conversation, [user("q1b", "better")], 200);
    const { tree, path } = treeOfConversation(edited);
    expect(ids(path)).toEqual(["q1b"]);
    expect(ids(edited.otherMessages ?? []).sort()).toEqual(["a1", "q1"]);
    expect(tree.nodes.get("q1b")?.link.parentId).toBeNull();
  });

  it("messages taken out for good are deleted, and what followed them follows their parent", () => {
    const start = saved(undefined, [user("q1"), answer("a1"), user("failed"), user("q3"), answer("a3")], 100);
    const merged = mergeLocalSave(start, where, save([user("q1"), answer("a1"), user("q3"), answer("a3")], { removedIds: ["failed", "never-kept"] }), 200);
    expect(merged?.changes.deletedMessages).toEqual(["failed"]);
    expect(ids(merged!.conversation.messages)).toEqual(["q1", "a1", "q3", "a3"]);
    expect(merged!.conversation.removedMessages).toEqual({ failed: "a1" });
    // A tab that still shows the deleted message does not bring it back.
    const stale = saved(merged!.conversation, [user("q1"), answer("a1"), user("failed"), user("q3"), answer("a3", "more")], 300);
    expect(ids(stale.messages)).toEqual(["q1", "a1", "q3", "a3"]);
  });

  it("the title follows the first question as first asked, not its edit", () => {
    const first = saved(undefined, [user("q1", "Trip to Kyoto"), answer("a1")], 100);
    expect(saved(first, [user("q1b", "Trip to Nara")], 200).title).toBe("Trip to Kyoto");
  });

  it("a title the person gave stays when a tab saves with the first question's", () => {
    const renamed = { ...saved(undefined, [user("q1", "hello")], 100), title: "Mine", titleEdited: true };
    expect(saved(renamed, [user("q1", "hello"), answer("a1")], 200)).toMatchObject({ title: "Mine", titleEdited: true });
  });

  it("reads a conversation kept before messages had parents as a line", () => {
    const old: Conversation = { ...where, title: "Old", titleEdited: false, pinned: false, archived: false, createdAt: 5, updatedAt: 6, messages: [user("q1"), answer("a1")] };
    const merged = mergeLocalSave(old, where, save([user("q1"), answer("a1"), user("q2")]), 100);
    expect(merged?.changes.messages).toEqual(["q2"]);
    expect(merged?.conversation.links?.q2?.parentId).toBe("a1");
  });
});

const remoteFields = (extra: Partial<RemoteConversation> = {}): RemoteConversation => ({
  title: "Trip",
  titleEdited: true,
  pinned: false,
  archived: false,
  createdAt: 10,
  updatedAt: 500,
  revs: { title: 50, pinned: 0, archived: 0 },
  ...extra,
});
const remoteMessage = (message: ChatUIMessage, parentId: string | null, rev: number) => ({
  id: message.id,
  deleted: false as const,
  parentId,
  role: message.role as "user" | "assistant",
  parts: message.parts,
  createdAt: rev,
  rev,
});

describe("changes from elsewhere", () => {
  it("makes a conversation this browser did not have", () => {
    const made = applyRemote(undefined, where, { conversation: remoteFields(), messages: [remoteMessage(user("q1"), null, 20), remoteMessage(answer("a1"), "q1", 30)] });
    expect(made).toMatchObject({ title: "Trip", titleEdited: true, createdAt: 10, updatedAt: 500 });
    expect(ids(made!.messages)).toEqual(["q1", "a1"]);
  });

  it("titles a conversation known from its messages by its first question", () => {
    const made = applyRemote(undefined, where, { messages: [remoteMessage(user("q1", "Hello there"), null, 20)] });
    expect(made?.title).toBe("Hello there");
  });

  it("takes a message only with a higher rev, and keeps the branch shown", () => {
    const local = saved(undefined, [user("q1"), answer("a1", "mine")], 100);
    expect(applyRemote(local, where, { messages: [remoteMessage(answer("a1", "older"), "q1", 99)] })).toBeUndefined();
    const newer = applyRemote(local, where, { messages: [remoteMessage(answer("a1", "newer"), "q1", 150), remoteMessage(user("q2"), "a1", 160)] });
    expect(newer?.messages.map((message) => (message.parts[0] as { text: string }).text)).toEqual(["q1", "newer", "q2"]);
  });

  it("a delete takes a message out; one deleted here is not brought back", () => {
    const local = saved(undefined, [user("q1"), answer("a1"), user("q2")], 100);
    const deleted = applyRemote(local, where, { messages: [{ id: "q2", deleted: true }] });
    expect(ids(deleted!.messages)).toEqual(["q1", "a1"]);
    expect(applyRemote(deleted, where, { messages: [remoteMessage(user("q2"), "a1", 999)] })).toBeUndefined();
  });

  it("each field group takes the server's value only with a higher rev", () => {
    const local = { ...saved(undefined, [user("q1")], 100), title: "Local", titleEdited: true, revs: { title: 300 } };
    const merged = applyRemote(local, where, { conversation: remoteFields({ pinned: true, revs: { title: 50, pinned: 60, archived: 0 } }), messages: [] });
    expect(merged).toMatchObject({ title: "Local", pinned: true, revs: { title: 300, pinned: 60 } });
  });
});
