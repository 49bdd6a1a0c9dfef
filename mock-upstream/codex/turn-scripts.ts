import { isRecord } from "../http-util";

/**
 * One tool call the mock model makes, in order, within a scripted turn: a function call with JSON
 * `arguments`, or, with `input`, a freeform (custom) tool call such as apply_patch.
 */
export interface ScriptedToolCall {
  name: string;
  arguments?: Record<string, unknown>;
  input?: string;
}

type ScriptedAnswer =
  | { kind: "function_call"; name: string; arguments: string; callId: string }
  | { kind: "custom_tool_call"; name: string; input: string; callId: string }
  | { kind: "message"; text: string };

const OUTPUT_TYPES = new Set(["function_call_output", "custom_tool_call_output"]);

function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) {
    return output
      .filter(isRecord)
      .map((part) => (typeof part.text === "string" ? part.text : ""))
      .join("");
  }
  return JSON.stringify(output ?? null);
}

interface TurnProgress {
  /** User messages so far: identifies the turn within its thread. */
  userMessages: number;
  /** Tool outputs codex sent back since the last user message. */
  outputs: string[];
}

function progressOf(input: readonly Record<string, unknown>[]): TurnProgress {
  let lastUser = -1;
  let userMessages = 0;
  input.forEach((item, index) => {
    if (item.role === "user" && (item.type === undefined || item.type === "message")) {
      lastUser = index;
      userMessages++;
    }
  });
  const outputs = input.slice(lastUser + 1).filter((item) => OUTPUT_TYPES.has(String(item.type))).map((item) => outputText(item.output));
  return { userMessages, outputs };
}

interface BoundScript {
  userMessages: number;
  calls: ScriptedToolCall[];
}

/**
 * Scripted model turns for the codex tests: a test queues the function calls of the next turn;
 * the mock answers that turn's requests with one call each, then with a final message quoting the
 * tool outputs codex sent back. Turns are told apart by `prompt_cache_key` (codex sets it to the
 * thread id) and progress is read from the request itself, so retries answer the same way.
 */
export class TurnScripts {
  private queued: ScriptedToolCall[][] = [];
  private byThread = new Map<string, BoundScript>();
  private nextCallNumber = 1;

  queue(calls: ScriptedToolCall[]): void {
    this.queued.push(calls.map((call) => ({ ...call, ...(call.arguments ? { arguments: { ...call.arguments } } : {}) })));
  }

  clear(): void {
    this.queued = [];
    this.byThread.clear();
  }

  /** The scripted answer for a /responses request, or undefined for the normal echo reply. */
  answer(body: Record<string, unknown>, input: readonly Record<string, unknown>[]): ScriptedAnswer | undefined {
    const thread = typeof body.prompt_cache_key === "string" ? body.prompt_cache_key : "";
    const { userMessages, outputs } = progressOf(input);
    const bound = this.byThread.get(thread);
    // A new turn takes the next queued script; a retried request of the same turn keeps its own.
    if (bound?.userMessages !== userMessages) {
      const next = this.queued.shift();
      if (next) this.byThread.set(thread, { userMessages, calls: next });
      else this.byThread.delete(thread);
    }
    const script = this.byThread.get(thread)?.calls;
    if (!script) return undefined;
    const call = script[outputs.length];
    if (call) {
      const callId = `call_mock_${this.nextCallNumber++}`;
      if (call.input !== undefined) return { kind: "custom_tool_call", name: call.name, input: call.input, callId };
      return { kind: "function_call", name: call.name, arguments: JSON.stringify(call.arguments ?? {}), callId };
    }
    const quoted = outputs.map((text, index) => `${script[index]?.name ?? "tool"}: ${text}`).join("\n");
    return { kind: "message", text: `Done.\n${quoted}` };
  }
}
