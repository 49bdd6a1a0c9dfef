import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "../server";
import type { SiwcSwitch } from "./switches";
import { postSiwcResponses, signInSiwc, siwcBody, sseData } from "./test-flow";

let mock: MockUpstream;
let accessToken: string;
beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
});
afterAll(() => mock.close());
beforeEach(async () => {
  mock.reset();
  accessToken = (await signInSiwc(mock)).tokens.access_token;
});

async function streamWith(name: SiwcSwitch) {
  mock.siwc.arm({ switch: name });
  const reply = await postSiwcResponses(mock, accessToken, siwcBody());
  expect(reply.status).toBe(200);
  const text = await reply.text();
  return { reply, text, events: sseData(text) };
}

function types(events: ReturnType<typeof sseData>): unknown[] {
  return events.map((event) => (event === "[DONE]" ? event : event.type));
}

describe("HTTP errors before the stream", () => {
  it.each([
    ["usage_limit_exceeded", 429, { error: { code: "subscription_sharing_usage_limit_exceeded" } }],
    ["user_not_eligible", 403, { error: { code: "subscription_sharing_user_not_eligible" } }],
    ["chatpass_scope_not_authorized", 403, { error: { code: "chatpass_v2_scope_not_authorized" } }],
    ["chatpass_invalid_authorization_context", 403, { error: { code: "chatpass_v2_invalid_authorization_context" } }],
    ["invalid_user", 401, { error: { code: "subscription_sharing_invalid_user" } }],
    ["usage_unavailable", 503, { error: { code: "subscription_sharing_usage_unavailable" } }],
    ["user_unavailable", 503, { error: { code: "subscription_sharing_user_unavailable" } }],
    ["detail_401", 401, { detail: expect.any(String) }],
    ["detail_403", 403, { detail: expect.any(String) }],
    ["detail_503", 503, { detail: expect.any(String) }],
  ] as const)("%s answers %i", async (name, status, body) => {
    mock.siwc.arm({ switch: name });
    const reply = await postSiwcResponses(mock, accessToken, siwcBody());
    expect(reply.status).toBe(status);
    expect(reply.headers.get("x-request-id")).toMatch(/^req_/);
    expect(await reply.json()).toMatchObject(body);
    // One shot: the next request streams.
    expect((await postSiwcResponses(mock, accessToken, siwcBody())).status).toBe(200);
  });

  it("the usage limit per client and host answers 429 once reached", async () => {
    mock.siwc.configure({ usageLimit: 1 });
    expect((await postSiwcResponses(mock, accessToken, siwcBody())).status).toBe(200);
    const limited = await postSiwcResponses(mock, accessToken, siwcBody());
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: { code: "subscription_sharing_usage_limit_exceeded" } });
  });
});

describe("stream switches", () => {
  it("stream_no_content_type: no Content-Type, the same frames", async () => {
    const { reply, events } = await streamWith("stream_no_content_type");
    expect(reply.headers.get("content-type")).toBeNull();
    expect(types(events).at(-1)).toBe("response.completed");
  });

  it("stream_crlf: CRLF framing", async () => {
    const { text, events } = await streamWith("stream_crlf");
    expect(text).toContain("\r\n\r\n");
    expect(text.replaceAll("\r\n", "")).not.toContain("\n");
    expect(types(events).at(-1)).toBe("response.completed");
  });

  it("stream_eof_no_completed: the text, then EOF", async () => {
    const { events } = await streamWith("stream_eof_no_completed");
    expect(types(events)).toContain("response.output_text.delta");
    expect(types(events)).not.toContain("response.completed");
  });

  it("stream_done_before_completed: [DONE] and no completed", async () => {
    const { events } = await streamWith("stream_done_before_completed");
    expect(events.at(-1)).toBe("[DONE]");
    expect(types(events)).not.toContain("response.completed");
  });

  it("stream_incomplete: response.incomplete instead of completed", async () => {
    const { events } = await streamWith("stream_incomplete");
    expect(events.at(-1)).toMatchObject({ type: "response.incomplete", response: { status: "incomplete" } });
  });

  it.each([
    ["stream_failed_usage_limit", "subscription_sharing_usage_limit_exceeded"],
    ["stream_failed_usage_unavailable", "subscription_sharing_usage_unavailable"],
  ] as const)("%s: response.failed with %s after text has begun", async (name, code) => {
    const { events } = await streamWith(name);
    expect(types(events).slice(-2)).toEqual(["response.output_text.delta", "response.failed"]);
    expect(events.at(-1)).toMatchObject({ response: { status: "failed", error: { code } } });
  });

  it("stream_error_event: a top-level error event", async () => {
    const { events } = await streamWith("stream_error_event");
    expect(events.at(-1)).toMatchObject({ type: "error", code: expect.any(String), message: expect.any(String) });
  });

  it("stream_model_not_found: response.failed with model_not_found before any text", async () => {
    const { events } = await streamWith("stream_model_not_found");
    expect(types(events)).not.toContain("response.output_text.delta");
    expect(events.at(-1)).toMatchObject({ type: "response.failed", response: { error: { code: "model_not_found" } } });
  });

  it("stream_empty_output: completed carries output []", async () => {
    const { events } = await streamWith("stream_empty_output");
    expect(events.at(-1)).toMatchObject({ type: "response.completed", response: { output: [] } });
    expect(types(events)).toContain("response.output_item.done");
  });

  it("stream_phase: message items carry phase", async () => {
    const { events } = await streamWith("stream_phase");
    const done = events.find((e) => e !== "[DONE]" && e.type === "response.output_item.done");
    expect(done).toMatchObject({ item: { type: "message", phase: "final_answer" } });
  });

  it("stream_long: keeps sending deltas for durationMs before completing", async () => {
    mock.siwc.arm({ switch: "stream_long", durationMs: 1200 });
    const started = Date.now();
    const text = await (await postSiwcResponses(mock, accessToken, siwcBody())).text();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1100);
    const events = sseData(text);
    expect(types(events).filter((t) => t === "response.output_text.delta").length).toBeGreaterThan(5);
    expect(types(events).at(-1)).toBe("response.completed");
  });
});

describe("[[mock:<switch>]] markers in the newest user message", () => {
  it("fire an HTTP error or a stream switch for that request only, and stay out of the echo", async () => {
    const limited = await postSiwcResponses(mock, accessToken, siwcBody({ input: [{ role: "user", content: "hi [[mock:usage_limit_exceeded]]" }] }));
    expect(limited.status).toBe(429);
    const failed = sseData(await (await postSiwcResponses(mock, accessToken, siwcBody({ input: [{ role: "user", content: "hi [[mock:stream_failed_usage_limit]]" }] }))).text());
    expect(failed.at(-1)).toMatchObject({ type: "response.failed", response: { error: { code: "subscription_sharing_usage_limit_exceeded" } } });
    const history = [
      { role: "user", content: "earlier [[mock:stream_error_event]]" },
      { role: "assistant", content: "ok" },
      { role: "user", content: "now" },
    ];
    const events = sseData(await (await postSiwcResponses(mock, accessToken, siwcBody({ input: history }))).text());
    expect(types(events).at(-1)).toBe("response.completed");
    const text = events.flatMap((e) => (e !== "[DONE]" && e.type === "response.output_text.delta" ? [e.delta] : [])).join("");
    expect(text).toBe('You said: "now". Earlier you said: "earlier".');
  });
});
