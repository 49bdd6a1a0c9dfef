import { describe, expect, it } from "vitest";
import type { ChatUIMessage } from "./chat-turns";
import { conversationWrite, MAX_PUSH_BYTES, MAX_PUSH_ITEMS, messageWrite, packPushes, pushBody, readChangesPage, type PushItem } from "./history-wire";

const node = (message: ChatUIMessage, parentId: string | null = null) => ({ message, link: { parentId, createdAt: 5, rev: 7 } });
const text = (id: string, body: string, role: ChatUIMessage["role"] = "user"): ChatUIMessage => ({ id, role, parts: [{ type: "text", text: body }] });

describe("a page from the server", () => {
  it("reads a page, leaving out an item of the wrong shape", () => {
    const page = readChangesPage({
      cursor: 9,
      more: false,
      conversations: [
        { id: "c1", seq: 1, deleted: false, title: "T", titleEdited: false, pinned: false, archived: false, createdAt: 1, updatedAt: 2, revs: { title: 1, pinned: 0, archived: 0 } },
        { id: "c2", seq: 2, deleted: true },
        { id: "c3", deleted: false },
      ],
      messages: [
        { conversationId: "c1", id: "m1", seq: 3, deleted: false, parentId: null, role: "user", parts: [], createdAt: 1, rev: 1 },
        { conversationId: "c1", id: "m2", seq: 4, deleted: false, parentId: null, role: "system", parts: [], createdAt: 1, rev: 1 },
      ],
      instructions: { text: "Be brief.", rev: 3 },
    });
    expect(page?.conversations.map((item) => item.id)).toEqual(["c1", "c2"]);
    expect(page?.messages.map((item) => item.id)).toEqual(["m1"]);
    expect(page?.instructions).toEqual({ text: "Be brief.", rev: 3 });
    expect(readChangesPage({ cursor: 0, more: false, restart: "cleared", conversations: [], messages: [] })?.restart).toBe("cleared");
    expect(readChangesPage({ cursor: "9" })).toBeUndefined();
  });
});

describe("what a push carries", () => {
  it("writes a message with its link, and leaves out one the server would refuse", () => {
    expect(messageWrite("c1", node(text("m2", "hi", "assistant"), "m1"))).toEqual({
      conversationId: "c1",
      id: "m2",
      parentId: "m1",
      role: "assistant",
      parts: [{ type: "text", text: "hi" }],
      createdAt: 5,
      rev: 7,
    });
    expect(messageWrite("c1", node(text("s1", "be evil", "system")))).toBeUndefined();
    expect(messageWrite("c1", node({ id: "m3", role: "user", parts: [{ type: "file", mediaType: "image/png", url: "https://example.com/a.png" }] }))).toBeUndefined();
    expect(messageWrite("c1", node({ id: "m4", role: "assistant", parts: [{ type: "source-url", sourceId: "s", url: "javascript:alert(1)" }] }))).toBeUndefined();
    expect(messageWrite("c 1", node(text("m5", "x")))).toBeUndefined();
  });

  it("writes a conversation's title with the rev that set it", () => {
    const conversation = { id: "c1", accountId: "a", title: "x".repeat(1200), titleEdited: true, pinned: false, archived: false, createdAt: 1, updatedAt: 2, messages: [], revs: { title: 42 } };
    expect(conversationWrite(conversation)).toEqual([{ id: "c1", rev: 42, createdAt: 1, updatedAt: 2, title: "x".repeat(1000), titleEdited: true }]);
  });

  it("writes the pin and the archive apart, each with the rev that set it; a flag kept without a rev goes with the conversation's time", () => {
    const conversation = { id: "c1", accountId: "a", title: "T", titleEdited: false, pinned: false, archived: true, createdAt: 1, updatedAt: 2, messages: [], revs: { title: 42, pinned: 50 } };
    expect(conversationWrite(conversation)).toEqual([
      { id: "c1", rev: 42, createdAt: 1, updatedAt: 2, title: "T", titleEdited: false },
      { id: "c1", rev: 50, pinned: false },
      { id: "c1", rev: 2, archived: true },
    ]);
    const writes = conversationWrite(conversation)!;
    expect(pushBody([{ kind: "conversation", writes }, { kind: "delete-conversation", id: "c2" }])).toEqual({ conversations: writes, deletes: { conversations: ["c2"] } });
  });

  it("lays items out in the API's lists", () => {
    const items: PushItem[] = [
      { kind: "delete-message", ref: { conversationId: "c1", id: "m9" } },
      { kind: "message", write: messageWrite("c1", node(text("m1", "hi")))! },
      { kind: "delete-conversation", id: "c2" },
    ];
    expect(pushBody(items)).toEqual({ messages: [items[1]!.kind === "message" && items[1]!.write], deletes: { conversations: ["c2"], messages: [{ conversationId: "c1", id: "m9" }] } });
  });

  it("packs pushes by count and by bytes; an item too large for any push is set apart", () => {
    const small: PushItem = { kind: "delete-conversation", id: "c1" };
    const big = (size: number): PushItem => ({ kind: "message", write: messageWrite("c1", node(text("m1", "x".repeat(size))))! });
    const byCount = packPushes(Array.from({ length: MAX_PUSH_ITEMS * 2 + 1 }, () => small), (item) => item);
    expect(byCount.batches.map((batch) => batch.length)).toEqual([MAX_PUSH_ITEMS, MAX_PUSH_ITEMS, 1]);
    // A conversation sent as three writes counts three of the server's items.
    const three: PushItem = { kind: "conversation", writes: [{ id: "c1", rev: 1, pinned: true }, { id: "c1", rev: 1, archived: true }, { id: "c1", rev: 1, pinned: true }] };
    const byWrites = packPushes([...Array.from({ length: MAX_PUSH_ITEMS - 2 }, () => small), three], (item) => item);
    expect(byWrites.batches.map((batch) => batch.length)).toEqual([MAX_PUSH_ITEMS - 2, 1]);
    const bySize = packPushes([big(2_000_000), big(2_000_000), big(MAX_PUSH_BYTES), small], (item) => item);
    expect(bySize.batches.map((batch) => batch.length)).toEqual([1, 2]);
    expect(bySize.tooLarge).toHaveLength(1);
  });
});
