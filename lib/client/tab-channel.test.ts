import { describe, expect, it } from "vitest";
import { openTabChannel, type TabMessage } from "./tab-channel";

describe("the tabs' channel", () => {
  it("tells the account's other tabs, not the tab itself and not another account's tabs", async () => {
    const own: TabMessage[] = [];
    const stranger: TabMessage[] = [];
    const sender = openTabChannel("acct_a", (message) => own.push(message));
    const otherAccount = openTabChannel("acct_b", (message) => stranger.push(message));
    const heard = new Promise<TabMessage[]>((resolve) => {
      const received: TabMessage[] = [];
      const receiver = openTabChannel("acct_a", (message) => {
        received.push(message);
        if (message.type === "settings") {
          receiver.close();
          resolve(received);
        }
      });
    });
    sender.post({ type: "changed", conversationIds: ["c1"] });
    sender.post({ type: "settings" });
    // One sender's messages arrive in order: the second one ends the wait.
    expect(await heard).toEqual([{ type: "changed", conversationIds: ["c1"] }, { type: "settings" }]);
    sender.close();
    otherAccount.close();
    expect(own).toEqual([]);
    expect(stranger).toEqual([]);
  });
});
