import { describe, expect, it } from "vitest";
import type { ChatErrorInfo } from "./chat-error";
import {
  canRetry,
  failureAfterSignIn,
  isFailedMessage,
  isLastTurn,
  lastCompletedExchange,
  markLastTurnFailed,
  messagesForUpstream,
  removeTurn,
  type ChatUIMessage,
} from "./chat-turns";

const user = (id: string, text: string): ChatUIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const answer = (id: string, text: string): ChatUIMessage => ({ id, role: "assistant", parts: text ? [{ type: "text", text }] : [] });
const failure: ChatErrorInfo = { code: "responses_request_failed", message: "The model service answered with status 500." };

describe("failed turns", () => {
  it("marks the last user message failed and drops an empty answer", () => {
    const marked = markLastTurnFailed([user("u1", "hi"), answer("a1", "hello"), user("u2", "fails"), answer("a2", "")], failure);
    expect(marked.map((message) => message.id)).toEqual(["u1", "a1", "u2"]);
    expect(marked[2]!.metadata?.failure).toEqual(failure);
    expect(isFailedMessage(marked[0]!)).toBe(false);
  });

  it("keeps a partial answer but marks it part of the failed turn", () => {
    const marked = markLastTurnFailed([user("u1", "hi"), answer("a1", "half an ans")], failure);
    expect(marked.map((message) => message.id)).toEqual(["u1", "a1"]);
    expect(marked[1]!.metadata?.failedTurn).toBe(true);
  });

  it("leaves failed turns out of what goes upstream", () => {
    const history = [...markLastTurnFailed([user("u1", "fails"), answer("a1", "partial")], failure), user("u2", "next")];
    expect(messagesForUpstream(history).map((message) => message.id)).toEqual(["u2"]);
  });

  it("removes a turn up to the next user message", () => {
    const history = [user("u1", "a"), answer("a1", "b"), user("u2", "c"), answer("a2", "d")];
    expect(removeTurn(history, "u1").map((message) => message.id)).toEqual(["u2", "a2"]);
    expect(removeTurn(history, "u2").map((message) => message.id)).toEqual(["u1", "a1"]);
    expect(isLastTurn(history, "u2")).toBe(true);
    expect(isLastTurn(history, "u1")).toBe(false);
  });

  it("once signed in again, a turn refused as signed out says so and can be sent again", () => {
    const signedOut: ChatErrorInfo = { code: "not_authenticated", status: 401, message: "You're signed out. Sign in again to keep chatting." };
    const shown = failureAfterSignIn(signedOut);
    expect(shown.code).toBe("sent_while_signed_out");
    expect(shown.message).not.toMatch(/sign in again/i);
    expect(canRetry(shown)).toBe(true);
    expect(failureAfterSignIn(failure)).toBe(failure);
  });

  it("offers retry only where sending again can work", () => {
    expect(canRetry(failure)).toBe(true);
    expect(canRetry({ code: "network_error", message: "" })).toBe(true);
    expect(canRetry({ code: "usage_limit", message: "" })).toBe(false);
    expect(canRetry({ code: "responses_request_too_large", message: "" })).toBe(false);
    expect(canRetry({ code: "not_authenticated", message: "" })).toBe(false);
    // The same request would be refused the same way.
    expect(canRetry({ code: "images_not_supported", message: "" })).toBe(false);
    // A model out of reach stays out of reach until the person picks another one.
    expect(canRetry({ code: "client_version_outdated", message: "" })).toBe(false);
    expect(canRetry({ code: "model_not_supported", message: "" })).toBe(false);
    // ChatGPT plan usage (Sign in with ChatGPT): a limit is never retried in a loop; a refusal stays one.
    expect(canRetry({ code: "plan_usage_limit_reached", message: "" })).toBe(false);
    expect(canRetry({ code: "plan_usage_not_granted", message: "" })).toBe(false);
    expect(canRetry({ code: "plan_not_eligible", message: "" })).toBe(false);
    expect(canRetry({ code: "unsupported_field", message: "" })).toBe(false);
    // Unavailable for now may pass later.
    expect(canRetry({ code: "plan_usage_unavailable", message: "" })).toBe(true);
  });

  it("finds the last completed exchange before a failed turn", () => {
    const history = [
      user("u1", "a"),
      answer("a1", "b"),
      user("u2", "c"),
      answer("a2", "d"),
      ...markLastTurnFailed([user("u3", "too big")], { code: "responses_request_too_large", message: "" }),
    ];
    expect(lastCompletedExchange(history).map((message) => message.id)).toEqual(["u2", "a2"]);
    expect(lastCompletedExchange([user("u1", "only")])).toEqual([]);
  });
});
