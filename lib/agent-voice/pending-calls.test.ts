/**
 * The pending-call state machine on its own: each transition, and the races between the agent's
 * request, the person's confirms and the session's close. An answer is checked by awaiting the
 * promise the agent's request waits on; "not answered yet" by racing it against a resolved marker.
 */
import { describe, expect, it } from "vitest";
import type { PendingToolCall } from "./types";
import { createPendingCalls, DECLINED_ANSWER, SESSION_ENDED_ANSWER, toolAnswer, toolText, type ToolAnswer } from "./pending-calls";

function call(callId: string): PendingToolCall {
  return {
    callId,
    tool: "save_note",
    arguments: { text: "milk" },
    review: { text: "milk" },
    owner: { loginId: "login-1", accountId: "account-1" },
    createdAt: 1_000,
  };
}

const UNANSWERED = Symbol("unanswered");
/** The answer if the agent's request has one already, else UNANSWERED (microtasks run first). */
async function answerSoFar(answer: Promise<ToolAnswer>): Promise<ToolAnswer | typeof UNANSWERED> {
  await Promise.resolve();
  return Promise.race([answer, Promise.resolve(UNANSWERED)]);
}

describe("answers", () => {
  it("sends a tool's text as it is and a JSON value as its JSON text", () => {
    expect(toolAnswer(toolText("done"), true)).toEqual({ contentItems: [{ type: "inputText", text: "done" }], success: true });
    expect(toolText({ saved: 1 })).toBe('{"saved":1}');
    expect(toolText([1, 2])).toBe("[1,2]");
  });
});

describe("a call waiting for the person", () => {
  it("is kept, readable by its id, and unanswered until something ends it", async () => {
    const calls = createPendingCalls();
    const answer = calls.wait(call("c1"));
    expect(calls.has("c1")).toBe(true);
    expect(calls.read("c1")).toEqual(call("c1"));
    expect(calls.has("c2")).toBe(false);
    expect(calls.read("c2")).toBeNull();
    expect(await answerSoFar(answer)).toBe(UNANSWERED);
  });

  it("declined: the agent is told the person declined, and the call is gone", async () => {
    const calls = createPendingCalls();
    const answer = calls.wait(call("c1"));
    const confirmation = calls.take("c1");
    expect(confirmation?.call.callId).toBe("c1");
    confirmation!.decline();
    expect(await answer).toEqual(DECLINED_ANSWER);
    expect(calls.has("c1")).toBe(false);
    expect(calls.read("c1")).toBeNull();
  });

  it("approved: the agent gets the handler's output, once, and the call is gone", async () => {
    const calls = createPendingCalls();
    const answer = calls.wait(call("c1"));
    const confirmation = calls.take("c1")!;
    expect(confirmation.approve({ saved: true })).toBe(true);
    expect(await answer).toEqual(toolAnswer('{"saved":true}', true));
    expect(calls.has("c1")).toBe(false);
    // A second approve of the same confirmation finds nothing: the agent was answered once.
    expect(confirmation.approve("again")).toBe(false);
  });

  it("stays readable while its confirm runs (the handler re-reads it from here)", () => {
    const calls = createPendingCalls();
    void calls.wait(call("c1"));
    calls.take("c1");
    expect(calls.has("c1")).toBe(true);
    expect(calls.read("c1")?.callId).toBe("c1");
  });

  it("the handler failed: the call waits again, unanswered, and a new confirm can take it", async () => {
    const calls = createPendingCalls();
    const answer = calls.wait(call("c1"));
    calls.take("c1")!.fail();
    expect(calls.has("c1")).toBe(true);
    expect(await answerSoFar(answer)).toBe(UNANSWERED);
    const retry = calls.take("c1");
    expect(retry).not.toBeNull();
    retry!.approve("done");
    expect(await answer).toEqual(toolAnswer("done", true));
  });

  it("calls are independent: ending one leaves the other waiting", async () => {
    const calls = createPendingCalls();
    const first = calls.wait(call("c1"));
    const second = calls.wait(call("c2"));
    calls.take("c1")!.decline();
    expect(await first).toEqual(DECLINED_ANSWER);
    expect(calls.has("c2")).toBe(true);
    expect(await answerSoFar(second)).toBe(UNANSWERED);
  });
});

describe("races", () => {
  it("a confirm that arrives before the agent's request finds nothing; once the request is there it can be confirmed", async () => {
    const calls = createPendingCalls();
    expect(calls.take("c1")).toBeNull();
    const answer = calls.wait(call("c1"));
    calls.take("c1")!.approve("done");
    expect(await answer).toEqual(toolAnswer("done", true));
  });

  it("a confirm after the call ended (declined or approved) finds nothing", () => {
    const calls = createPendingCalls();
    void calls.wait(call("c1"));
    calls.take("c1")!.decline();
    expect(calls.take("c1")).toBeNull();
    void calls.wait(call("c2"));
    calls.take("c2")!.approve("done");
    expect(calls.take("c2")).toBeNull();
  });

  it("a second confirm while the first one's handler runs finds nothing, and the first still ends the call", async () => {
    const calls = createPendingCalls();
    const answer = calls.wait(call("c1"));
    const first = calls.take("c1")!;
    expect(calls.take("c1")).toBeNull();
    expect(first.approve("done")).toBe(true);
    expect(await answer).toEqual(toolAnswer("done", true));
  });

  it("close while the call waits: the agent is told the session ended, and a later confirm finds nothing", async () => {
    const calls = createPendingCalls();
    const first = calls.wait(call("c1"));
    const second = calls.wait(call("c2"));
    calls.endAll();
    expect(await first).toEqual(SESSION_ENDED_ANSWER);
    expect(await second).toEqual(SESSION_ENDED_ANSWER);
    expect(calls.has("c1")).toBe(false);
    expect(calls.take("c1")).toBeNull();
  });

  it("close while a confirm runs: the agent is told the session ended, and the handler's output goes nowhere", async () => {
    const calls = createPendingCalls();
    const answer = calls.wait(call("c1"));
    const confirmation = calls.take("c1")!;
    calls.endAll();
    expect(calls.read("c1")).toBeNull();
    expect(confirmation.approve("done")).toBe(false);
    expect(await answer).toEqual(SESSION_ENDED_ANSWER);
  });

  it("close while a confirm runs, then its handler fails: the call does not come back", () => {
    const calls = createPendingCalls();
    void calls.wait(call("c1"));
    const confirmation = calls.take("c1")!;
    calls.endAll();
    confirmation.fail();
    expect(calls.has("c1")).toBe(false);
    expect(calls.take("c1")).toBeNull();
  });

  it("a new call that reuses the id of one ended under a running confirm is not ended by that confirm", async () => {
    const calls = createPendingCalls();
    void calls.wait(call("c1"));
    const stale = calls.take("c1")!;
    calls.endAll();
    const fresh = calls.wait(call("c1"));
    expect(stale.approve("stale output")).toBe(false);
    stale.fail();
    expect(await answerSoFar(fresh)).toBe(UNANSWERED);
    calls.take("c1")!.approve("fresh output");
    expect(await fresh).toEqual(toolAnswer("fresh output", true));
  });
});
