import "server-only";
import type { ConfirmTool, RealtimeTool } from "../types";

/**
 * A `confirmTool` for tools that define their action as `run`: it re-reads the pending call from
 * the server's records, checks it belongs to the account confirming it, then runs the tool for
 * that account. Copy it when your confirmed actions need more checks.
 */
export function createConfirmTool(tools: readonly RealtimeTool[]): ConfirmTool {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return async ({ callId, account, readPendingCall, store, now }) => {
    const call = readPendingCall();
    if (!call || call.callId !== callId) throw new Error("the call is no longer pending");
    if (call.owner.accountId !== account.accountId || call.owner.loginId !== account.loginId) {
      throw new Error("the call belongs to another login");
    }
    const tool = byName.get(call.tool);
    if (!tool) throw new Error(`no tool named ${call.tool}`);
    return tool.run(call.arguments, { account, store, now });
  };
}
