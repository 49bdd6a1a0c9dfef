import "server-only";
/**
 * The tool calls of one live session that wait for the person's decision, as a state machine with
 * no I/O. A call is `pending` from the agent's request until a confirm takes it (`confirming`);
 * then it ends one of three ways, each answering the agent's request exactly once:
 *
 * - declined: answered "declined" at once;
 * - approved: answered with the confirm handler's output, unless the call is gone by then (the
 *   session closed meanwhile: that confirm is told "not pending");
 * - the handler failed: the call is `pending` again, so the person can try again.
 *
 * A confirm for an unknown call (it came before the agent's request, or after the call ended)
 * and a second confirm while the first one runs both find nothing to take. Closing the session
 * (the person, a limit, the idle or duration timeout, a logout) answers every waiting call
 * "ended" and forgets them all; a confirm still running then finds its call gone.
 */
import type { PendingToolCall, ToolOutput } from "./types";

/** What the agent's `item/tool/call` request is answered with. */
export interface ToolAnswer {
  contentItems: { type: "inputText"; text: string }[];
  success: boolean;
}

export function toolAnswer(text: string, success: boolean): ToolAnswer {
  return { contentItems: [{ type: "inputText", text }], success };
}

/** A tool's output as the text the agent reads: a string as it is, a JSON value as its JSON text. */
export function toolText(output: ToolOutput): string {
  return typeof output === "string" ? output : JSON.stringify(output);
}

export const DECLINED_ANSWER = toolAnswer("The person declined. Nothing was done.", false);
export const SESSION_ENDED_ANSWER = toolAnswer("The voice session ended before this was confirmed.", false);

/** One confirm that took a pending call: it ends the call one way, once. */
interface Confirmation {
  call: PendingToolCall;
  /** The person said no: the agent is told so and the call is gone. */
  decline(): void;
  /** The handler failed: the call waits again (if it is still there). */
  fail(): void;
  /** The handler's output goes to the agent. False when the call is gone (the session closed meanwhile). */
  approve(output: ToolOutput): boolean;
}

interface PendingCalls {
  /** True while a call with this id waits or is being confirmed (a second request with its id is refused). */
  has(callId: string): boolean;
  /** Keeps the call until it ends; resolves with what the agent is told. */
  wait(call: PendingToolCall): Promise<ToolAnswer>;
  /** The call as the server keeps it (never as a request says it), or null once it is gone. */
  read(callId: string): PendingToolCall | null;
  /** A confirm takes the call; null when there is none waiting (unknown, ended, or already taken). */
  take(callId: string): Confirmation | null;
  /** The session closes: every call is answered "ended" and forgotten. */
  endAll(): void;
  /** The session moves to another instance: every call is forgotten unanswered (that instance answers it). */
  handOver(): PendingToolCall[];
}

interface Entry {
  call: PendingToolCall;
  state: "pending" | "confirming";
  answer(result: ToolAnswer): void;
}

export function createPendingCalls(): PendingCalls {
  const entries = new Map<string, Entry>();

  /** Answers and forgets the entry if it is still the one kept for its call id. */
  function end(entry: Entry, answer: ToolAnswer): boolean {
    if (entries.get(entry.call.callId) !== entry) return false;
    entries.delete(entry.call.callId);
    entry.answer(answer);
    return true;
  }

  return {
    has: (callId) => entries.has(callId),
    wait(call) {
      return new Promise<ToolAnswer>((answer) => {
        entries.set(call.callId, { call, state: "pending", answer });
      });
    },
    read: (callId) => entries.get(callId)?.call ?? null,
    take(callId) {
      const entry = entries.get(callId);
      if (!entry || entry.state !== "pending") return null;
      entry.state = "confirming";
      return {
        call: entry.call,
        decline: () => void end(entry, DECLINED_ANSWER),
        fail() {
          if (entries.get(callId) === entry) entry.state = "pending";
        },
        approve: (output) => end(entry, toolAnswer(toolText(output), true)),
      };
    },
    endAll() {
      const ending = [...entries.values()];
      entries.clear();
      for (const entry of ending) entry.answer(SESSION_ENDED_ANSWER);
    },
    handOver() {
      const calls = [...entries.values()].map((entry) => entry.call);
      entries.clear();
      return calls;
    },
  };
}
