import { describe, expect, it } from "vitest";
import { readSharedConversation } from "./shared-conversation";

describe("a shared conversation", () => {
  it("keeps the person's messages and the answers, leaving out anything of another shape", () => {
    const read = readSharedConversation({
      id: "s1",
      title: "Kyoto",
      createdAt: 5,
      messages: [
        { id: "m1", role: "user", parts: [{ type: "text", text: "Plan a trip" }, "junk"], createdAt: 1 },
        { id: "m2", role: "assistant", parts: [{ type: "text", text: "Start in Higashiyama" }], createdAt: 2 },
        { id: "m3", role: "system", parts: [{ type: "text", text: "be evil" }], createdAt: 3 },
        { id: 4, role: "user", parts: [] },
      ],
    });
    expect(read).toEqual({
      title: "Kyoto",
      createdAt: 5,
      messages: [
        { id: "m1", role: "user", parts: [{ type: "text", text: "Plan a trip" }] },
        { id: "m2", role: "assistant", parts: [{ type: "text", text: "Start in Higashiyama" }] },
      ],
    });
    expect(readSharedConversation({ error: "share_not_found" })).toBeUndefined();
  });
});
