import { describe, expect, it } from "vitest";
import type { ChatUIMessage } from "./chat-turns";
import { createConversationInbox } from "./conversation-inbox";

const said: ChatUIMessage[] = [{ id: "v1", role: "user", parts: [{ type: "text", text: "hello" }], metadata: { source: "voice" } }];

describe("the conversation inbox", () => {
  it("keeps a command for its conversation until that one takes it, once", () => {
    const inbox = createConversationInbox();
    inbox.post("c1", { type: "show-message", messageId: "m4" });
    expect(inbox.take("c2")).toEqual([]);
    expect(inbox.take("c1")).toEqual([{ type: "show-message", messageId: "m4" }]);
    expect(inbox.take("c1")).toEqual([]);
  });

  it("hands over a conversation's commands in the order they were posted", () => {
    const inbox = createConversationInbox();
    inbox.post("c1", { type: "append", messages: said });
    inbox.post("c1", { type: "show-message", messageId: null });
    expect(inbox.take("c1").map((command) => command.type)).toEqual(["append", "show-message"]);
  });

  it("tells its listeners of each post until they stop listening", () => {
    const inbox = createConversationInbox();
    const heard: string[] = [];
    const stop = inbox.subscribe(() => heard.push(...inbox.take("c1").map((command) => command.type)));
    inbox.post("c1", { type: "append", messages: said });
    stop();
    inbox.post("c1", { type: "show-message", messageId: "m1" });
    expect(heard).toEqual(["append"]);
    expect(inbox.take("c1")).toHaveLength(1);
  });

  it("forgets what was not taken when cleared", () => {
    const inbox = createConversationInbox();
    inbox.post("c1", { type: "show-message", messageId: "m4" });
    inbox.post("c2", { type: "append", messages: said });
    inbox.clear();
    expect([...inbox.take("c1"), ...inbox.take("c2")]).toEqual([]);
  });
});
