import { describe, expect, it } from "vitest";
import type { ChatUIMessage } from "./chat-turns";
import { addressShowing, conversationIdIn, metaForSave, openPointerKey } from "./open-conversation";

const user = (id: string, text: string): ChatUIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const answer = (id: string, text: string): ChatUIMessage => ({ id, role: "assistant", parts: [{ type: "text", text }] });

describe("the open conversation's address", () => {
  it("names a saved conversation as ?c=<id> and keeps the other parameters", () => {
    expect(addressShowing("http://localhost:3000/", "abc")).toBe("http://localhost:3000/?c=abc");
    expect(addressShowing("http://localhost:3000/chat-app/?theme=dark", "abc")).toBe("http://localhost:3000/chat-app/?theme=dark&c=abc");
    expect(addressShowing("http://localhost:3000/?c=old&theme=dark", "new")).toBe("http://localhost:3000/?c=new&theme=dark");
  });

  it("shows a new chat without it", () => {
    expect(addressShowing("http://localhost:3000/?c=abc&theme=dark", null)).toBe("http://localhost:3000/?theme=dark");
    expect(addressShowing("http://localhost:3000/", null)).toBe("http://localhost:3000/");
  });

  it("reads the conversation an address names", () => {
    expect(conversationIdIn("?c=abc&theme=dark")).toBe("abc");
    expect(conversationIdIn("")).toBeNull();
  });

  it("remembers the open conversation per account", () => {
    expect(openPointerKey("acct-1")).not.toBe(openPointerKey("acct-2"));
  });
});

describe("a conversation's title as its messages change", () => {
  it("starts now, named after the first question, neither pinned nor archived", () => {
    expect(metaForSave(null, [user("u1", "Plan a trip\nto Lisbon"), answer("a1", "Sure")], 1000)).toEqual({
      createdAt: 1000,
      title: "Plan a trip",
      titleEdited: false,
      pinned: false,
      archived: false,
    });
  });

  it("follows the first question until its first answer or a rename, and keeps when it started and how it is organised", () => {
    const meta = { createdAt: 1000, title: "Plan a trip", titleEdited: false, pinned: true, archived: false };
    expect(metaForSave(meta, [user("u1", "Plan a holiday")], 5000)).toEqual({ ...meta, title: "Plan a holiday" });
    const renamed = { ...meta, title: "Lisbon", titleEdited: true };
    expect(metaForSave(renamed, [user("u1", "Plan a holiday")], 5000)).toEqual(renamed);
    // Once answered, the title stays (it may have been generated since, here or on another device).
    const named = { ...meta, title: "Lisbon in spring" };
    expect(metaForSave(named, [user("u1", "Plan a trip"), answer("a1", "Sure")], 5000)).toEqual(named);
    // A first turn that failed has no answer yet: its edit or retry still names the conversation.
    const failed = { ...answer("a1", "partial"), metadata: { failedTurn: true as const } };
    expect(metaForSave(meta, [user("u1", "Plan a holiday"), failed], 5000).title).toBe("Plan a holiday");
  });

  it("is New chat before any question", () => {
    expect(metaForSave(null, [], 1000).title).toBe("New chat");
  });
});
