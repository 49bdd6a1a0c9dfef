import "server-only";
/**
 * The agent's tool calls in one live session (`item/tool/call` requests): a tool that needs no
 * confirmation runs at once; one that does waits in the pending calls (pending-calls.ts) until the
 * person confirms or declines through `POST …/confirm`. Each step is an event for the page; a log
 * line names the tool and the error's kind only (a message may quote what the person said).
 */
import type { EventLog } from "./event-log";
import { METHOD_NOT_FOUND, RpcError } from "./json-rpc";
import { createPendingCalls, toolAnswer, toolText, type ToolAnswer } from "./pending-calls";
import type { ConfirmTool, PendingToolCall, RealtimeTool, ToolAccount, ToolContext, ToolOutput } from "./types";
import type { KeyValueStore } from "@/lib/stores/types";
import { LOG_PREFIX, type Logger } from "@/lib/logger";

export type ConfirmOutcome =
  | { kind: "done"; approved: boolean }
  | { kind: "not_pending" }
  | { kind: "handler_failed"; message: string };

interface ToolCallsSettings {
  tools: RealtimeTool[];
  /** The login that started the live session, and its account: every tool runs for it. */
  owner: { loginId: string; account: ToolAccount };
  store: KeyValueStore;
  events: EventLog;
  logger: Logger;
  now: () => number;
}

/** A call waiting for the person, as another instance takes it over: the call and the id of the agent's request. */
export interface HandedOverCall {
  call: PendingToolCall;
  rpcId: unknown;
}

export interface ToolCalls {
  /** Answers the agent's `item/tool/call` request `rpcId` (after the person's decision, for a confirmed tool). */
  onToolCall(params: unknown, rpcId?: unknown): Promise<unknown>;
  /** The person's decision on a waiting call. */
  confirm(callId: string, approved: boolean, confirmTool: ConfirmTool, account: ToolAccount & { loginId: string }): Promise<ConfirmOutcome>;
  /** The session closes: every waiting call is answered "ended". */
  endAll(): void;
  /** The session moves to another instance: the waiting calls, unanswered. */
  handOver(): HandedOverCall[];
  /** Takes over calls another instance handed over; `respond` answers the agent's request once the person decides. */
  adopt(calls: HandedOverCall[], respond: (rpcId: unknown, answer: unknown) => void): void;
}

/** For log lines about tools: the error's name only (a tool's message may quote what the person said). */
function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function createToolCalls(settings: ToolCallsSettings): ToolCalls {
  const { owner, events, logger, now } = settings;
  const tools = new Map(settings.tools.map((tool) => [tool.name, tool]));
  const pending = createPendingCalls();
  /** The agent's request id of each waiting call. */
  const rpcIds = new Map<string, unknown>();
  const toolContext: ToolContext = { account: owner.account, store: settings.store, now };

  async function runTool(tool: RealtimeTool, callId: string, args: unknown): Promise<ToolAnswer> {
    try {
      const output = await tool.run(args, toolContext);
      events.push("tool.completed", { callId, tool: tool.name });
      return toolAnswer(toolText(output), true);
    } catch (error) {
      logger.warn(`${LOG_PREFIX} realtime tool ${tool.name} failed: ${errorName(error)}`);
      events.push("tool.failed", { callId, tool: tool.name, message: "The tool failed." });
      return toolAnswer("The tool failed.", false);
    }
  }

  function awaitConfirmation(tool: RealtimeTool, callId: string, args: unknown): Promise<ToolAnswer> {
    let review: Record<string, unknown>;
    try {
      review = tool.review ? tool.review(args) : {};
    } catch (error) {
      events.push("tool.failed", { callId, tool: tool.name, message: "The tool was called with invalid arguments." });
      logger.warn(`${LOG_PREFIX} realtime tool ${tool.name} refused its arguments: ${errorName(error)}`);
      return Promise.resolve(toolAnswer("Invalid arguments.", false));
    }
    const answer = pending.wait({
      callId,
      tool: tool.name,
      arguments: args,
      review,
      owner: { loginId: owner.loginId, accountId: owner.account.accountId },
      createdAt: now(),
    });
    events.push("tool.pending_confirmation", { callId, tool: tool.name, review });
    return answer;
  }

  return {
    async onToolCall(params, rpcId) {
      const p = asRecord(params);
      const callId = typeof p.callId === "string" ? p.callId : "";
      const name = typeof p.tool === "string" ? p.tool : "";
      const tool = p.namespace == null ? tools.get(name) : undefined;
      if (!tool || callId === "") {
        events.push("tool.failed", { callId, tool: name, message: "No such tool." });
        throw new RpcError(METHOD_NOT_FOUND, `unknown tool ${name.slice(0, 64)}`);
      }
      if (pending.has(callId)) throw new RpcError(-32600, "duplicate callId");
      events.push("tool.running", { callId, tool: tool.name });
      if (tool.needsConfirmation) rpcIds.set(callId, rpcId);
      return tool.needsConfirmation ? awaitConfirmation(tool, callId, p.arguments) : runTool(tool, callId, p.arguments);
    },

    async confirm(callId, approved, confirmTool, account) {
      const confirmation = pending.take(callId);
      if (!confirmation) return { kind: "not_pending" };
      const tool = confirmation.call.tool;
      if (!approved) {
        confirmation.decline();
        events.push("tool.completed", { callId, tool, approved: false });
        return { kind: "done", approved: false };
      }
      let output: ToolOutput;
      try {
        output = await confirmTool({
          callId,
          confirmation: { approved: true },
          account,
          readPendingCall: () => pending.read(callId),
          store: settings.store,
          now,
        });
      } catch (error) {
        confirmation.fail(); // Back to pending: the person can try again.
        logger.warn(`${LOG_PREFIX} realtime confirmation of ${tool} failed: ${errorName(error)}`);
        return { kind: "handler_failed", message: "The confirmation handler failed. The action is still pending." };
      }
      if (!confirmation.approve(output)) return { kind: "not_pending" }; // The session closed meanwhile.
      events.push("tool.completed", { callId, tool, approved: true });
      return { kind: "done", approved: true };
    },

    endAll: () => pending.endAll(),
    handOver: () => pending.handOver().map((call) => ({ call, rpcId: rpcIds.get(call.callId) })),
    adopt(calls, respond) {
      for (const { call, rpcId } of calls) {
        rpcIds.set(call.callId, rpcId);
        void pending.wait(call).then((answer) => respond(rpcId, answer));
      }
    },
  };
}
