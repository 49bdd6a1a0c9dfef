/**
 * The model side of a Sign in with ChatGPT session, over real HTTP against the mock's SIWC API:
 * /models and /responses go to the SIWC API base with the bearer token only, what the backend
 * refuses is refused here first, every §9 refusal comes back in our words, and a reply that does
 * not end in response.completed never looks finished.
 */
import type { UIMessage, UIMessageChunk } from "ai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { decodeChatError } from "@/lib/client/chat-error";
import { chatRequestOptions } from "@/lib/client/chat-request-options";
import { createProviderProxy } from "@/lib/client/provider-proxy";
import { ProxyChatTransport } from "@/lib/client/proxy-chat-transport";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "@/mock-upstream/server";
import type { SiwcSwitch } from "@/mock-upstream/siwc/switches";
import { BASE, createEvidence, findLeakedTokens, PROMPT_MARKER, startHarness, type Harness, type TestClient } from "./harness";
import { siwcHandlerOptions, signInWithSiwc } from "./siwc-proxy-support";

const MANAGE_USAGE = "https://chatgpt.com/settings/usage";
const evidence = createEvidence();
let mock: MockUpstream;
let harness: Harness;
let client: TestClient;

beforeAll(async () => {
  mock = await startMockUpstream();
  harness = await startHarness({
    sharedMock: mock,
    evidence,
    handler: siwcHandlerOptions(mock, { responsesProxy: { rateLimit: { limit: 1000, windowMs: 60_000 } } }),
  });
  client = await signInWithSiwc(harness);
});
afterAll(async () => {
  await harness?.close();
  await mock?.close();
});
beforeEach(() => {
  mock.siwc.clearSwitches();
  mock.siwc.setCatalog(null);
});

const apiCalls = (path: "/siwc/v1/models" | "/siwc/v1/responses"): RecordedRequest[] => mock.requests({ path });
const arm = (name: SiwcSwitch) => mock.siwc.arm({ switch: name });

/** A body as the AI SDK sends it for streamText. */
const body = (overrides: Record<string, unknown> = {}) => ({
  model: "gpt-5.5",
  stream: true,
  store: false,
  input: [{ role: "user", content: [{ type: "input_text", text: `hello there ${PROMPT_MARKER}` }] }],
  ...overrides,
});

/** The data payloads of an SSE reply ([DONE] as the string). */
function events(text: string): (Record<string, unknown> | "[DONE]")[] {
  return text
    .split("\n\n")
    .map((block) => block.split("\n").find((line) => line.startsWith("data:"))?.slice(5).trim())
    .filter((data): data is string => data !== undefined)
    .map((data) => (data === "[DONE]" ? "[DONE]" : (JSON.parse(data) as Record<string, unknown>)));
}
const types = (text: string) => events(text).map((event) => (event === "[DONE]" ? event : event.type));

describe("GET /models for a SIWC session", () => {
  it("lists the catalogue's listed models in the server's order, with the bearer token only", async () => {
    mock.siwc.setCatalog([
      { slug: "zeta", display_name: "Zeta", visibility: "list", priority: 9 },
      { slug: "hidden", display_name: "Hidden", visibility: "hide", priority: 0 },
      // The model the other tests ask for (the list stays cached for this session).
      { slug: "gpt-5.5", display_name: "GPT-5.5", visibility: "list", priority: 5 },
      { slug: "alpha", display_name: "Alpha", visibility: "list", priority: 1, minimal_client_version: "99.0.0" },
      { slug: "not-api", display_name: "Not API", visibility: "list", supported_in_api: false },
    ]);
    const reply = await client.get("/models");
    expect(reply.status).toBe(200);
    const json = reply.json<{ models: string[]; modelDetails: { slug: string; displayName: string; unavailable?: unknown }[] }>();
    expect(json.models).toEqual(["zeta", "gpt-5.5", "alpha"]);
    expect(json.modelDetails.map((model) => [model.slug, model.displayName, model.unavailable])).toEqual([
      ["zeta", "Zeta", undefined],
      ["gpt-5.5", "GPT-5.5", undefined],
      ["alpha", "Alpha", undefined],
    ]);
    const sent = apiCalls("/siwc/v1/models").at(-1)!;
    expect(sent.query).toEqual({});
    expect(sent.headers.authorization).toMatch(/^Bearer \S+$/);
    for (const header of ["chatgpt-account-id", "originator", "version", "openai-organization", "openai-project"]) {
      expect(sent.headers[header]).toBeUndefined();
    }
    expect(sent.headers["user-agent"] ?? "").not.toContain("codex");
  });

  it("a refusal of the list comes back in our words, with models: [] and the backend's request id", async () => {
    // A fresh server (no cached list), then the app disconnected in ChatGPT's settings: 401 {detail}.
    const other = await startHarness({ sharedMock: mock, evidence, handler: siwcHandlerOptions(mock) });
    try {
      const person = await signInWithSiwc(other);
      const { clientId } = mock.siwc.snapshot().registrations.at(-1)!;
      mock.siwc.disconnect(clientId);
      const reply = await person.get("/models");
      expect(reply.status).toBe(401);
      expect(reply.json()).toMatchObject({ models: [], error: "plan_authorization_invalid", status: 401, upstreamRequestId: expect.stringMatching(/^req_/) });
      expect(reply.json<{ message: string }>().message).toMatch(/ChatGPT did not accept/);
      // Still signed in: a 401 of the API is not a sign-out.
      expect((await person.get("/session")).json()).toMatchObject({ status: "authenticated" });
    } finally {
      await other.close();
    }
  });
});

describe("POST /responses for a SIWC session", () => {
  it("streams the reply from the SIWC API: bearer only, store:false, stream:true, a string input and system items fixed", async () => {
    const before = apiCalls("/siwc/v1/responses").length;
    const reply = await client.post(
      "/responses",
      body({ input: `just a string ${PROMPT_MARKER}`, store: true, instructions: "Be brief." }),
    );
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(types(reply.text)).toContain("response.output_text.delta");
    expect(types(reply.text).at(-1)).toBe("response.completed");
    expect(reply.text).not.toContain('"type":"error"');

    const calls = apiCalls("/siwc/v1/responses");
    expect(calls).toHaveLength(before + 1);
    const sent = calls.at(-1)!;
    expect(sent.body).toMatchObject({
      model: "gpt-5.5",
      store: false,
      stream: true,
      instructions: "Be brief.",
      input: [{ type: "message", role: "user", content: [{ type: "input_text", text: `just a string ${PROMPT_MARKER}` }] }],
    });
    expect(sent.headers.authorization).toMatch(/^Bearer \S+$/);
    for (const header of ["chatgpt-account-id", "originator", "version", "session_id"]) expect(sent.headers[header]).toBeUndefined();
  });

  it("sends system items as developer ones", async () => {
    const reply = await client.post(
      "/responses",
      body({ input: [{ role: "system", content: "Rules." }, { role: "user", content: "hi" }] }),
    );
    expect(reply.status).toBe(200);
    expect(apiCalls("/siwc/v1/responses").at(-1)!.body).toMatchObject({ input: [{ role: "developer", content: "Rules." }, { role: "user" }] });
  });

  it("answers one JSON response for a request without stream: true", async () => {
    const reply = await client.post("/responses", body({ stream: false }));
    expect(reply.status).toBe(200);
    expect(reply.json()).toMatchObject({ object: "response", status: "completed" });
    expect(apiCalls("/siwc/v1/responses").at(-1)!.body).toMatchObject({ stream: true });
  });

  it.each([
    "background",
    "conversation",
    "max_output_tokens",
    "max_tool_calls",
    "metadata",
    "moderation",
    "multi_agent",
    "prompt",
    "prompt_cache_retention",
    "safety_identifier",
    "temperature",
    "top_logprobs",
    "top_p",
    "truncation",
    "user",
    "previous_response_id",
  ])("refuses %s with 400 unsupported_field naming it, and sends nothing", async (field) => {
    const before = apiCalls("/siwc/v1/responses").length;
    const reply = await client.post("/responses", body({ [field]: field === "metadata" ? { a: "b" } : "x" }));
    expect(reply.status).toBe(400);
    expect(reply.json()).toMatchObject({ error: "unsupported_field", param: field });
    expect(reply.json<{ message: string }>().message).toContain(field);
    expect(apiCalls("/siwc/v1/responses")).toHaveLength(before);
  });

  it("answers image generation 403 not_available_with_siwc (a feature plan usage lacks), even beside a refused field, and sends nothing", async () => {
    const before = apiCalls("/siwc/v1/responses").length;
    const reply = await client.post("/responses", body({ temperature: 1, tools: [{ type: "web_search" }, { type: "image_generation" }] }));
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual({ error: "not_available_with_siwc", message: expect.stringMatching(/Image generation is not available/) });
    expect(apiCalls("/siwc/v1/responses")).toHaveLength(before);
  });

  it.each([
    ["a bare function tool", { type: "function", name: "lookup", parameters: { type: "object" } }, /namespace/],
    ["a hosted tool", { type: "code_interpreter", container: { type: "auto" } }, /not available/],
  ])("refuses %s as tools[0], and sends nothing", async (_label, tool, message) => {
    const before = apiCalls("/siwc/v1/responses").length;
    const reply = await client.post("/responses", body({ tools: [tool] }));
    expect(reply.status).toBe(400);
    expect(reply.json()).toMatchObject({ error: "unsupported_field", param: "tools[0]", message: expect.stringMatching(message) });
    expect(apiCalls("/siwc/v1/responses")).toHaveLength(before);
  });

  it("a refusal of the backend itself (a tier it does not take) is unsupported_field with its param, not resent", async () => {
    const before = apiCalls("/siwc/v1/responses").length;
    const reply = await client.post("/responses", body(), { "x-login-with-provider-service-tier": "fast" });
    expect(reply.status).toBe(400);
    expect(reply.json()).toMatchObject({ error: "unsupported_field", param: "service_tier", upstreamRequestId: expect.stringMatching(/^req_/) });
    expect(apiCalls("/siwc/v1/responses")).toHaveLength(before + 1);
  });
});

describe("POST /responses: the backend's refusals before the stream, in our words, never retried", () => {
  it.each([
    ["usage_limit_exceeded", 429, "plan_usage_limit_reached"],
    ["user_not_eligible", 403, "plan_not_eligible"],
    ["chatpass_scope_not_authorized", 403, "plan_authorization_invalid"],
    ["chatpass_invalid_authorization_context", 403, "plan_authorization_invalid"],
    ["invalid_user", 401, "plan_authorization_invalid"],
    ["usage_unavailable", 503, "plan_usage_unavailable"],
    ["user_unavailable", 503, "plan_usage_unavailable"],
    ["detail_401", 401, "plan_authorization_invalid"],
    ["detail_403", 403, "plan_access_restricted"],
    ["detail_503", 503, "plan_usage_unavailable"],
  ] as const)("%s → %i %s", async (name, status, code) => {
    arm(name);
    const before = apiCalls("/siwc/v1/responses").length;
    const reply = await client.post("/responses", body());
    expect(reply.status).toBe(status);
    const json = reply.json<Record<string, unknown>>();
    expect(json).toMatchObject({ error: code, status, upstreamRequestId: expect.stringMatching(/^req_/) });
    expect(typeof json.message).toBe("string");
    // One call: no forced refresh, no retry, no other way of paying.
    expect(apiCalls("/siwc/v1/responses")).toHaveLength(before + 1);
    expect(reply.headers.get("retry-after")).toBeNull();
    // Still signed in.
    expect((await client.get("/session")).json()).toMatchObject({ status: "authenticated", signIn: "siwc" });
  });

  it("a usage limit points to Manage usage and names no reset time", async () => {
    arm("usage_limit_exceeded");
    const reply = await client.post("/responses", body());
    const json = reply.json<Record<string, unknown>>();
    expect(json.message).toContain(MANAGE_USAGE);
    expect(json).not.toHaveProperty("usageLimit");
    expect(json).not.toHaveProperty("detail");
    expect(reply.text).not.toMatch(/resets?|retry/i);
  });

  it("a bare {detail} is quoted as a snippet", async () => {
    arm("detail_403");
    const reply = await client.post("/responses", body());
    expect(reply.json()).toMatchObject({ detail: "Direct requests are not available in your region." });
  });
});

describe("POST /responses: a reply that does not end in response.completed ends in our error event", () => {
  const lastEvent = (text: string) => events(text).at(-1) as Record<string, unknown>;

  it.each([
    ["stream_failed_usage_limit", "plan_usage_limit_reached", "subscription_sharing_usage_limit_exceeded"],
    ["stream_failed_usage_unavailable", "plan_usage_unavailable", "subscription_sharing_usage_unavailable"],
    ["stream_error_event", "responses_request_failed", "server_error"],
    ["stream_model_not_found", "model_not_supported", "model_not_found"],
  ] as const)("%s: the backend's failure is replaced by an error event with %s", async (name, code, upstreamCode) => {
    arm(name);
    const reply = await client.post("/responses", body());
    expect(reply.status).toBe(200);
    expect(lastEvent(reply.text)).toMatchObject({
      type: "error",
      sequence_number: -1,
      code,
      upstream_code: upstreamCode,
      request_id: expect.stringMatching(/^req_/),
    });
    expect(types(reply.text)).not.toContain("response.failed");
    expect(types(reply.text)).not.toContain("response.completed");
    if (code === "plan_usage_limit_reached") expect(lastEvent(reply.text).message).toContain(MANAGE_USAGE);
  });

  it("a model the backend does not find drops the cached list: the next /models asks the API again", async () => {
    await client.get("/models");
    const listed = apiCalls("/siwc/v1/models").length;
    await client.get("/models");
    expect(apiCalls("/siwc/v1/models")).toHaveLength(listed);
    arm("stream_model_not_found");
    const reply = await client.post("/responses", body());
    expect(lastEvent(reply.text)).toMatchObject({ code: "model_not_supported", message: expect.stringContaining('"gpt-5.5"') });
    await client.get("/models");
    expect(apiCalls("/siwc/v1/models")).toHaveLength(listed + 1);
  });

  it.each([
    ["stream_incomplete", /max_output_tokens/],
    ["stream_eof_no_completed", /ended before it finished/],
    ["stream_done_before_completed", /ended before it finished/],
  ] as const)("%s: an error event upstream_stream_interrupted is the last event", async (name, message) => {
    arm(name);
    const reply = await client.post("/responses", body());
    expect(reply.status).toBe(200);
    expect(lastEvent(reply.text)).toMatchObject({ type: "error", code: "upstream_stream_interrupted", message: expect.stringMatching(message) });
    expect(types(reply.text)).not.toContain("response.completed");
    expect(types(reply.text)).not.toContain("response.incomplete");
  });

  it.each(["stream_no_content_type", "stream_crlf", "stream_empty_output", "stream_phase"] as const)(
    "%s still completes cleanly",
    async (name) => {
      arm(name);
      const reply = await client.post("/responses", body());
      expect(reply.status).toBe(200);
      expect(types(reply.text).at(-1)).toBe("response.completed");
      expect(reply.text).not.toContain("\r");
    },
  );

  it("for a one-JSON reply, a failure mid-stream is the failure's status and code", async () => {
    arm("stream_failed_usage_limit");
    const limited = await client.post("/responses", body({ stream: false }));
    expect(limited.status).toBe(429);
    expect(limited.json()).toMatchObject({ error: "plan_usage_limit_reached" });

    arm("stream_incomplete");
    const incomplete = await client.post("/responses", body({ stream: false }));
    expect(incomplete.status).toBe(502);
    expect(incomplete.json()).toMatchObject({ error: "responses_request_failed", detail: expect.stringMatching(/max_output_tokens/) });
  });

  it("the stream passes through as it arrives: the first words reach the client while the backend's reply is still open", async () => {
    // stream_long keeps the backend's reply open (a "." every second) far longer than the test may
    // run: the first delta can only be read here if it was passed on before the reply ended.
    mock.siwc.arm({ switch: "stream_long", durationMs: 10 * 60_000 });
    const response = await client.raw("POST", "/responses", { headers: { "content-type": "application/json" }, body: JSON.stringify(body()) });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (!seen.includes("response.output_text.delta")) {
      const { done, value } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    expect(seen).toContain("response.output_text.delta");
    const upstream = apiCalls("/siwc/v1/responses").at(-1)!;
    expect(upstream.completed).toBe(false);
    // The client going away ends the backend's reply too.
    await reader.cancel();
    await expect(mock.waitForRequest((request) => request.id === upstream.id && request.aborted, 10_000)).resolves.toMatchObject({ completed: false });
  });
});

describe("a SIWC session signed in without plan usage", () => {
  it("/responses and /models answer 403 plan_usage_not_granted before any upstream call", async () => {
    const identityOnly = await signInWithSiwc(harness, "identity_only");
    const before = { models: apiCalls("/siwc/v1/models").length, responses: apiCalls("/siwc/v1/responses").length };
    const responses = await identityOnly.post("/responses", body());
    expect(responses.status).toBe(403);
    expect(responses.json()).toMatchObject({ error: "plan_usage_not_granted", message: expect.stringMatching(/Enable plan usage/) });
    const models = await identityOnly.get("/models");
    expect(models.status).toBe(403);
    expect(models.json()).toMatchObject({ models: [], error: "plan_usage_not_granted" });
    expect(apiCalls("/siwc/v1/models")).toHaveLength(before.models);
    expect(apiCalls("/siwc/v1/responses")).toHaveLength(before.responses);
  });
});

describe("the page's chat transport (the AI SDK) with a SIWC session", () => {
  const cookieFetch: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("cookie", `${client.cookieName}=${client.cookie}`);
    return fetch(input, { ...init, headers });
  };
  const transport = () => new ProxyChatTransport({ provider: createProviderProxy({ basePath: `${harness.served.url}${BASE}/`, fetch: cookieFetch }) });
  const conversation: UIMessage[] = [
    { id: "u1", role: "user", parts: [{ type: "text", text: "what is this?" }] },
    { id: "a1", role: "assistant", parts: [{ type: "text", text: "a chart" }] },
    { id: "u2", role: "user", parts: [{ type: "text", text: "and now?" }] },
  ];
  async function send(options: ReturnType<typeof chatRequestOptions>): Promise<UIMessageChunk[]> {
    const stream = await transport().sendMessages({ trigger: "submit-message", chatId: "c", messageId: undefined, messages: conversation, abortSignal: undefined, ...options });
    const chunks: UIMessageChunk[] = [];
    const reader = stream.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
    return chunks;
  }
  const errorOf = (chunks: UIMessageChunk[]) => {
    const chunk = chunks.find((candidate) => candidate.type === "error");
    return chunk?.type === "error" ? decodeChatError(new Error(chunk.errorText)) : undefined;
  };

  it("a conversation streams its answer: nothing the page sends is refused", async () => {
    const chunks = await send(chatRequestOptions({ model: "gpt-5.5", reasoningEffort: "medium", fast: false, webSearch: true }));
    expect(errorOf(chunks)).toBeUndefined();
    expect(chunks.map((chunk) => (chunk.type === "text-delta" ? chunk.delta : "")).join("")).not.toBe("");
    const sent = apiCalls("/siwc/v1/responses").at(-1)!.body as Record<string, unknown>;
    expect((sent.input as { role: string }[]).map((item) => item.role)).toEqual(["user", "assistant", "user"]);
    expect(sent).toMatchObject({ store: false, stream: true, reasoning: { effort: "medium" }, tools: [{ type: "web_search" }] });
  });

  it("a usage limit mid-answer reaches the page as an error, not a finished answer", async () => {
    arm("stream_failed_usage_limit");
    const chunks = await send(chatRequestOptions({ model: "gpt-5.5", reasoningEffort: "medium", fast: false }));
    expect(errorOf(chunks)).toMatchObject({ code: "plan_usage_limit_reached" });
  });

  it("an answer cut off before response.completed reaches the page as an error", async () => {
    arm("stream_eof_no_completed");
    const chunks = await send(chatRequestOptions({ model: "gpt-5.5", reasoningEffort: "medium", fast: false }));
    expect(errorOf(chunks)?.message).toMatch(/ended before it finished/);
  });
});

describe("SIWC sign-in and the server's settings over time", () => {
  it("a session signed in with SIWC on a server that has since turned SIWC off: 403 siwc_disabled, nothing sent", async () => {
    const shared = await startHarness({ sharedMock: mock, evidence, handler: siwcHandlerOptions(mock) });
    const off = await startHarness({ sharedMock: mock, evidence, handler: { sessionStore: shared.store } });
    try {
      const person = await signInWithSiwc(shared);
      const before = { models: apiCalls("/siwc/v1/models").length, responses: apiCalls("/siwc/v1/responses").length };
      const elsewhere = off.client();
      elsewhere.cookie = person.cookie;
      const responses = await elsewhere.post("/responses", body());
      expect(responses.status).toBe(403);
      expect(responses.json()).toMatchObject({ error: "siwc_disabled" });
      const models = await elsewhere.get("/models");
      expect(models.json()).toMatchObject({ models: [], error: "siwc_disabled" });
      expect(apiCalls("/siwc/v1/models")).toHaveLength(before.models);
      expect(apiCalls("/siwc/v1/responses")).toHaveLength(before.responses);
      expect(mock.requests().filter((request) => request.path.startsWith("/backend-api/"))).toEqual([]);
    } finally {
      await off.close();
      await shared.close();
    }
  });

  it("after the access token's hour the call goes with a refreshed token", async () => {
    const tokenAt = (request: RecordedRequest) => request.headers.authorization;
    await client.post("/responses", body());
    const before = tokenAt(apiCalls("/siwc/v1/responses").at(-1)!);
    harness.clock.advance(61 * 60_000);
    mock.siwc.advanceClock(61 * 60);
    const reply = await client.post("/responses", body());
    expect(reply.status).toBe(200);
    expect(types(reply.text).at(-1)).toBe("response.completed");
    expect(tokenAt(apiCalls("/siwc/v1/responses").at(-1)!)).not.toBe(before);
  });
});

describe("leaks", () => {
  it("no token or prompt text in any body or log line", () => {
    expect(findLeakedTokens(evidence)).toEqual([]);
  });
});
