import { APICallError, NoOutputGeneratedError } from "ai";
import { describe, expect, it } from "vitest";
import { decodeChatError, describeChatError, encodeChatError } from "./chat-error";
import { canRetry } from "./chat-turns";

function apiError(statusCode: number | undefined, body?: unknown, headers?: Record<string, string>) {
  return new APICallError({
    message: "failed",
    url: "http://127.0.0.1/api/provider/responses",
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("describeChatError", () => {
  it("never shows an internal address from a server's detail", () => {
    const detail = "Upstream request to http://10.0.0.7:8080/backend-api/codex/responses failed: connect ECONNREFUSED";
    const described = describeChatError(apiError(502, { error: "network_error", detail }));
    expect(described.message).not.toContain("10.0.0.7");
    expect(described.message).not.toMatch(/https?:/);
    expect(described.message).toContain("ECONNREFUSED");
  });

  it("turns the service's error bodies into words and keeps the code", () => {
    expect(describeChatError(apiError(401, { error: "not_authenticated" }))).toMatchObject({
      code: "not_authenticated",
      message: "You're signed out. Sign in again to keep chatting.",
    });
    expect(describeChatError(apiError(403, { error: "model_not_allowed", model: "gpt-x" })).message).toBe(
      "The model “gpt-x” isn't available in this app. Pick another model.",
    );
    expect(describeChatError(apiError(502, { error: "responses_request_failed", status: 502, detail: "Bad gateway upstream." }))).toEqual({
      code: "responses_request_failed",
      status: 502,
      message: "Bad gateway upstream. (status 502)",
    });
    expect(describeChatError(apiError(500, { error: "responses_request_failed", status: 500, detail: "Upstream answered 500: oops" })).message).toBe(
      "Upstream answered 500: oops",
    );
    expect(describeChatError(apiError(503, { error: "responses_request_failed", status: 503 })).message).toBe(
      "The model service answered with status 503.",
    );
  });

  it("says in one sentence, with the model's name, that a model is out of reach", () => {
    const outdated = describeChatError(
      apiError(400, { error: "client_version_outdated", status: 400, model: "gpt-7-sol", message: "operator text", detail: "backend text" }),
    );
    expect(outdated).toEqual({
      code: "client_version_outdated",
      status: 400,
      model: "gpt-7-sol",
      message: "“gpt-7-sol” needs a newer client version than this server uses. Pick another model; the server's operator can raise LWC_CLIENT_VERSION.",
    });
    const retired = describeChatError(apiError(400, { error: "model_not_supported", status: 400, model: "gpt-5.4", detail: "backend text" }));
    expect(retired).toEqual({
      code: "model_not_supported",
      status: 400,
      model: "gpt-5.4",
      message: "“gpt-5.4” is no longer offered for ChatGPT accounts. Pick another model.",
    });
  });

  it("names a model that does not take images, with no address and the model it named", () => {
    const refused = describeChatError(
      apiError(400, { error: "responses_request_failed", status: 400, detail: "Upstream answered 400: The 'gpt-text' model does not support image inputs." }),
    );
    expect(refused).toEqual({
      code: "images_not_supported",
      status: 400,
      model: "gpt-text",
      message: "The model “gpt-text” doesn't take images. Pick a model that does, or remove the images from this turn.",
    });
  });

  it("reads the wait from the body, else from retry-after, and says it in seconds", () => {
    expect(describeChatError(apiError(429, { error: "rate_limited", retryAfterSeconds: 1 })).message).toBe(
      "Too many requests — try again in 1 second.",
    );
    expect(describeChatError(apiError(429, { error: "rate_limited" }, { "retry-after": "17" }))).toMatchObject({
      retryAfterSeconds: 17,
      message: "Too many requests — try again in 17 seconds.",
    });
  });

  it("recognises the plan's usage limit, with resetsAt in seconds or milliseconds", () => {
    const inSeconds = describeChatError(
      apiError(429, { error: "responses_request_failed", status: 429, usageLimit: { resetsAt: 1_900_000_000, resetsInSeconds: 60, planType: "plus" } }),
    );
    expect(inSeconds).toMatchObject({ code: "usage_limit", usageLimit: { resetsAt: 1_900_000_000_000, planType: "plus" } });
    const inMs = describeChatError(apiError(429, { error: "responses_request_failed", usageLimit: { resetsAt: 1_900_000_000_000, resetsInSeconds: null, planType: null } }));
    expect(inMs.usageLimit).toEqual({ resetsAt: 1_900_000_000_000, resetsInSeconds: undefined, planType: undefined });
  });

  it("tells network failures, empty answers and broken streams apart", () => {
    expect(describeChatError(new TypeError("Failed to fetch")).code).toBe("network_error");
    expect(describeChatError(apiError(undefined)).code).toBe("network_error");
    expect(describeChatError(new NoOutputGeneratedError()).code).toBe("no_output");
    expect(describeChatError(apiError(200)).code).toBe("stream_failed");
    expect(describeChatError(apiError(500, { type: "response.failed", response: { error: { message: "boom" } } })).code).toBe("stream_failed");
  });

  it("tells a refusal (a picture the safety system blocked) from an interrupted answer: the provider's words, and no retry", () => {
    const refusal = { type: "response.failed", sequence_number: 2, response: { error: { code: "moderation_blocked", message: "Your request was rejected by the safety system." } } };
    // Before any output the AI SDK throws an API call error whose body is the event; later, its stream error.
    for (const error of [apiError(500, refusal), { message: "Your request was rejected by the safety system.", code: "moderation_blocked", data: refusal }]) {
      const described = describeChatError(error);
      expect(described).toEqual({ code: "refused", message: "Your request was rejected by the safety system." });
      expect(canRetry(described)).toBe(false);
    }
    expect(describeChatError(apiError(500, { type: "response.failed", response: { error: { code: "server_error", message: "boom" } } })).code).toBe("stream_failed");
  });

  it("says each ChatGPT plan refusal of a Sign in with ChatGPT session in words, the field named where one was refused", () => {
    expect(describeChatError(apiError(429, { error: "plan_usage_limit_reached", message: "server words" }))).toEqual({
      code: "plan_usage_limit_reached",
      status: 429,
      message: expect.stringContaining("Manage usage in your ChatGPT settings"),
    });
    expect(describeChatError(apiError(403, { error: "plan_usage_not_granted" })).message).toContain("Enable plan usage");
    for (const code of ["plan_not_eligible", "plan_usage_unavailable", "plan_route_not_supported", "plan_authorization_invalid", "plan_access_restricted", "not_available_with_siwc"]) {
      const described = describeChatError(apiError(403, { error: code }));
      expect(described.code).toBe(code);
      expect(described.message).not.toContain(code);
    }
    expect(describeChatError(apiError(400, { error: "unsupported_field", field: "temperature" }))).toMatchObject({
      code: "unsupported_field",
      field: "temperature",
      message: "ChatGPT plan usage doesn't accept “temperature” in a request. Change the setting that adds it and try again.",
    });
    // A field name is shown only when it looks like one.
    expect(describeChatError(apiError(400, { error: "unsupported_field", field: "<img src=x>" })).field).toBeUndefined();
  });

  it("recognises a plan refusal that arrives inside the stream (the proxy's error event with our code)", () => {
    const event = { type: "error", sequence_number: -1, code: "plan_usage_limit_reached", message: "server words", param: null };
    // Before the first word, the AI SDK throws an API call error whose body is the event.
    expect(describeChatError(apiError(500, event)).code).toBe("plan_usage_limit_reached");
    // Later, the event itself, or the SDK's provider stream error (its code, the event as data).
    expect(describeChatError({ ...event, code: "plan_usage_unavailable" }).code).toBe("plan_usage_unavailable");
    expect(describeChatError({ message: "server words", code: "plan_usage_limit_reached", data: event }).code).toBe("plan_usage_limit_reached");
    expect(describeChatError({ message: "server words", data: event }).code).toBe("plan_usage_limit_reached");
    expect(describeChatError({ type: "error", code: "unsupported_field", param: "top_p", message: "m" })).toMatchObject({ code: "unsupported_field", field: "top_p" });
    // Anything else inside the stream stays an interrupted answer.
    expect(describeChatError({ type: "error", code: "upstream_stream_interrupted", message: "cut" })).toEqual({ code: "stream_failed", message: "cut" });
  });

  it("survives the trip through the UI stream's error text", () => {
    const encoded = encodeChatError(apiError(403, { error: "model_not_allowed", model: "m" }));
    expect(decodeChatError(new Error(encoded))).toMatchObject({ code: "model_not_allowed", model: "m", status: 403 });
    expect(decodeChatError(undefined)).toBeUndefined();
    expect(decodeChatError(new Error("plain"))?.code).toBe("stream_failed");
  });
});
