import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "@/mock-upstream/server";
import {
  createEvidence,
  findLeakedTokens,
  responsesBody,
  signIn,
  startHarness,
  type Harness,
  type TestClient,
} from "./harness";

const RESPONSES_PATH = "/backend-api/codex/responses";
const evidence = createEvidence();
let mock: MockUpstream;
let h: Harness;
let client: TestClient;

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  h = await startHarness({ evidence, sharedMock: mock, handler: { responsesProxy: { maxRequestBytes: 4096 } } });
  client = h.client();
  await signIn(h, client);
});
afterAll(async () => {
  await h.close();
  await mock.close();
});
beforeEach(() => {
  mock.clearFaults();
  mock.setOptions({ streamChunkDelayMs: 0 });
});

const upstreamCalls = () => mock.requests({ path: RESPONSES_PATH });
const lastUpstream = (): RecordedRequest => upstreamCalls().at(-1)!;

/**
 * A fresh signed-in client with its own account (faults and rate limits are per account/session).
 * Its model list is fetched once, so the allow-list check is cached and later faults hit /responses.
 */
async function freshClient(accountId: string, harness: Harness = h): Promise<TestClient> {
  const fresh = harness.client();
  await signIn(harness, fresh, { accountId, email: `${accountId}@example.com` });
  expect((await fresh.get("/models")).status).toBe(200);
  return fresh;
}

describe("POST /responses: success", () => {
  it("streams the upstream reply with its content type, usage headers and no-store", async () => {
    const reply = await client.post("/responses", responsesBody("hello there"), { "x-request-id": "trace-abc-123" });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(reply.headers.get("cache-control")).toBe("no-store");
    expect(reply.headers.get("x-codex-primary-used-percent")).toMatch(/^\d+/);
    expect(reply.headers.get("x-codex-secondary-window-minutes")).toBe("10080");
    // Our own request id (the caller's here), never the backend's.
    expect(reply.headers.get("x-request-id")).toBe("trace-abc-123");
    expect(reply.headers.get("x-login-with-provider-service-tier-fallback")).toBeNull();
    expect(reply.text).toContain("event: response.completed");
    expect(reply.text).toContain('"delta":"You');
  });

  it("injects credentials server-side and normalizes the body for the backend", async () => {
    await client.post("/responses", { model: "gpt-5.5", input: "plain string input", max_output_tokens: 50 }, {
      "x-login-with-provider-reasoning-effort": "high",
    });
    const sent = lastUpstream();
    expect(sent.headers.authorization).toMatch(/^Bearer \S+$/);
    expect(evidence.issuedTokens.has(sent.headers.authorization!.slice("Bearer ".length))).toBe(true);
    expect(sent.headers["chatgpt-account-id"]).toBe("acct_demo");
    expect(sent.headers.originator).toBe("codex_cli_rs");
    expect(sent.body).toMatchObject({ model: "gpt-5.5", store: false, stream: true, reasoning: { effort: "high" } });
    expect(sent.body).not.toHaveProperty("max_output_tokens");
    expect(typeof (sent.body as { instructions?: unknown }).instructions).toBe("string");
  });

  it("delivers chunks as they arrive (the first chunk before upstream has finished)", async () => {
    mock.setOptions({ streamChunkDelayMs: 150 });
    const response = await client.raw("POST", "/responses", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify(responsesBody("one two three four five six seven eight")),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(lastUpstream().completed).toBe(false);
    let rest = new TextDecoder().decode(first.value);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    evidence.bodies.push(rest);
    expect(rest).toContain("response.completed");
    expect(lastUpstream().completed).toBe(true);
  });

  it("cancels the upstream request when the client aborts mid-stream", async () => {
    mock.setOptions({ streamChunkDelayMs: 200 });
    const controller = new AbortController();
    const response = await client.raw("POST", "/responses", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify(responsesBody("please write a very long answer with many many words in it")),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    const aborted = mock.waitForAbort(10_000);
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    const record = await aborted;
    expect(record.path).toBe(RESPONSES_PATH);
    expect(record.completed).toBe(false);
  });
});

describe("POST /responses: upstream stream broken off mid-reply", () => {
  it("ends the reply with one error event the AI SDK understands, and logs one line without the prompt", async () => {
    const user = await freshClient("acct_cut");
    mock.addFault({ fault: "stream_cut", accountId: "acct_cut" });
    const logsBefore = evidence.logs.length;
    const reply = await user.post("/responses", responsesBody("my private prompt text"));

    expect(reply.status).toBe(200);
    expect(reply.text).toContain('"delta":"You');
    expect(reply.text).not.toContain("response.completed");
    const events = reply.text.trim().split("\n\n").filter((event) => event.startsWith("event: "));
    const last = events.at(-1)!;
    expect(last.split("\n")[0]).toBe("event: error");
    expect(JSON.parse(last.split("\n")[1]!.slice("data: ".length))).toMatchObject({
      type: "error",
      code: "upstream_stream_interrupted",
      message: expect.any(String),
    });

    const lines = evidence.logs.slice(logsBefore).filter((line) => line.message.includes("stream interrupted"));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message).toMatch(/^\[login-with-chatgpt\] upstream \/responses stream interrupted: /);
    expect(lines[0]!.message).not.toContain("my private prompt text");
  });
});

describe("POST /responses: checks in contract order", () => {
  it("answers 401 not_authenticated without a session, before looking at headers or body", async () => {
    const reply = await h.client().post("/responses", "not json", { "x-login-with-provider-service-tier": "turbo" });
    expect(reply.status).toBe(401);
    expect(reply.json()).toMatchObject({ error: "not_authenticated" });
  });

  it("rejects an unknown service tier or reasoning effort with 400 naming the value", async () => {
    const tier = await client.post("/responses", responsesBody(), { "x-login-with-provider-service-tier": "turbo" });
    expect(tier.status).toBe(400);
    expect(tier.json()).toEqual({ error: "invalid_service_tier", serviceTier: "turbo" });
    const effort = await client.post("/responses", responsesBody(), { "x-login-with-provider-reasoning-effort": "ultra" });
    expect(effort.status).toBe(400);
    expect(effort.json()).toEqual({ error: "invalid_reasoning_effort", reasoningEffort: "ultra" });
  });

  it("checks headers before the body size", async () => {
    const reply = await client.post("/responses", "x".repeat(10_000), { "x-login-with-provider-service-tier": "turbo" });
    expect(reply.status).toBe(400);
    expect(reply.json().error).toBe("invalid_service_tier");
  });

  it("refuses a body over maxRequestBytes by Content-Length with 413 before parsing", async () => {
    const calls = upstreamCalls().length;
    const reply = await client.post("/responses", JSON.stringify(responsesBody("y".repeat(5000))));
    expect(reply.status).toBe(413);
    expect(reply.json()).toEqual({ error: "responses_request_too_large", maxRequestBytes: 4096 });
    expect(upstreamCalls().length).toBe(calls);
  });

  it("refuses a chunked body without Content-Length once it passes the limit", async () => {
    const encoder = new TextEncoder();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 20) return controller.close();
        sent += 1;
        controller.enqueue(encoder.encode(sent === 1 ? '{"model":"gpt-5.5","input":"' : "z".repeat(1000)));
      },
    });
    const response = await client.raw("POST", "/responses", { headers: { "content-type": "application/json" }, body });
    const text = await response.text();
    evidence.bodies.push(text);
    expect(response.status).toBe(413);
    expect(JSON.parse(text)).toEqual({ error: "responses_request_too_large", maxRequestBytes: 4096 });
  });

  it.each([
    ["invalid JSON", "{not json", /JSON/],
    ["a JSON array", "[1,2]", /object/],
    ["no model", JSON.stringify({ input: "hi" }), /^`model` must be a non-empty string$/],
    ["an empty model", JSON.stringify({ model: " ", input: "hi" }), /^`model` must be a non-empty string$/],
    ["input of the wrong type", JSON.stringify({ model: "gpt-5.5", input: 42 }), /^`input` must be a string or an array$/],
    ["no input", JSON.stringify({ model: "gpt-5.5" }), /^`input` must be a string or an array$/],
  ])("rejects %s with 400 invalid_responses_request", async (_label, body, message) => {
    const reply = await client.post("/responses", body);
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ error: "invalid_responses_request", message: expect.stringMatching(message) });
  });

  it("rejects a model the account does not list with 403 model_not_allowed", async () => {
    for (const model of ["codex-auto-review", "gpt-9"]) {
      const reply = await client.post("/responses", responsesBody("hi", { model }));
      expect(reply.status).toBe(403);
      expect(reply.json()).toEqual({ error: "model_not_allowed", model });
    }
    const freeClient = h.client();
    await signIn(h, freeClient, { accountId: "acct_free_only", plan: "free" });
    expect((await freeClient.post("/responses", responsesBody("hi", { model: "gpt-5.5" }))).status).toBe(403);
    expect((await freeClient.post("/responses", responsesBody("hi", { model: "gpt-5.4-mini" }))).status).toBe(200);
  });

  it("uses the configured allowedModels list instead of the account's list", async () => {
    const restricted = await startHarness({
      evidence,
      sharedMock: mock,
      handler: { responsesProxy: { allowedModels: ["gpt-5.4-mini", "gpt-unknown"] } },
    });
    try {
      const user = await freshClient("acct_restricted", restricted);
      const modelCalls = mock.requests({ path: "/backend-api/codex/models" }).length;
      expect((await user.post("/responses", responsesBody("hi", { model: "gpt-5.5" }))).status).toBe(403);
      expect((await user.post("/responses", responsesBody("hi", { model: "gpt-5.4-mini" }))).status).toBe(200);
      expect(mock.requests({ path: "/backend-api/codex/models" }).length).toBe(modelCalls);
      // Allowed here but unknown upstream: the backend's "not supported" 400 is named model_not_supported.
      const unknown = await user.post("/responses", responsesBody("hi", { model: "gpt-unknown" }), {
        "x-login-with-provider-service-tier": "fast",
      });
      expect(unknown.status).toBe(400);
      expect(unknown.json()).toMatchObject({ error: "model_not_supported", status: 400, model: "gpt-unknown", detail: expect.any(String) });
    } finally {
      await restricted.close();
    }
  });
});

describe("POST /responses: rate limit", () => {
  it("lets exactly 30 of 50 concurrent requests through; the rest get 429 with retry-after", async () => {
    const user = await freshClient("acct_burst");
    h.clock.alignToWindowStart(60_000);
    const replies = await Promise.all(Array.from({ length: 50 }, () => user.post("/responses", responsesBody("hi"))));
    const ok = replies.filter((reply) => reply.status === 200);
    const limited = replies.filter((reply) => reply.status === 429);
    expect(ok).toHaveLength(30);
    expect(limited).toHaveLength(20);
    for (const reply of limited) {
      const body = reply.json<{ error: string; retryAfterSeconds: number }>();
      expect(body.error).toBe("rate_limited");
      expect(body.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(body.retryAfterSeconds).toBeLessThanOrEqual(60);
      expect(reply.headers.get("retry-after")).toBe(String(body.retryAfterSeconds));
    }
    // Another session has its own budget.
    expect((await client.post("/responses", responsesBody("hi"))).status).toBe(200);
  });

  it("is configurable and can be turned off", async () => {
    const tight = await startHarness({ evidence, sharedMock: mock, handler: { responsesProxy: { rateLimit: { limit: 1, windowMs: 3_600_000 } } } });
    const open = await startHarness({ evidence, sharedMock: mock, handler: { responsesProxy: { rateLimit: false } } });
    try {
      const a = await freshClient("acct_tight", tight);
      expect((await a.post("/responses", responsesBody())).status).toBe(200);
      expect((await a.post("/responses", responsesBody())).status).toBe(429);
      const b = await freshClient("acct_open", open);
      const replies = await Promise.all(Array.from({ length: 35 }, () => b.post("/responses", responsesBody())));
      expect(replies.every((reply) => reply.status === 200)).toBe(true);
    } finally {
      await Promise.all([tight.close(), open.close()]);
    }
  });
});

describe("POST /responses: upstream trouble", () => {
  it("retries once without the tier when a fast tier is rejected, and says so in a header", async () => {
    const user = await freshClient("acct_tier");
    mock.addFault({ fault: "fast_tier_rejected", accountId: "acct_tier" });
    const before = upstreamCalls().length;
    const reply = await user.post("/responses", responsesBody(), { "x-login-with-provider-service-tier": "fast" });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("x-login-with-provider-service-tier-fallback")).toBe("auto");
    expect(reply.text).toContain("response.completed");
    const [first, second] = upstreamCalls().slice(before);
    expect(first!.body).toMatchObject({ service_tier: "priority" });
    expect(second!.body).not.toHaveProperty("service_tier");
    expect(upstreamCalls().length).toBe(before + 2);
  });

  it("refreshes once and retries when the backend answers 401", async () => {
    const user = await freshClient("acct_401");
    mock.addFault({ fault: "backend_unauthorized", accountId: "acct_401" });
    const refreshes = mock.requests({ path: "/oauth/token" }).length;
    const before = upstreamCalls().length;
    const reply = await user.post("/responses", responsesBody());
    expect(reply.status).toBe(200);
    expect(mock.requests({ path: "/oauth/token" }).length).toBe(refreshes + 1);
    const [first, second] = upstreamCalls().slice(before);
    expect(first!.headers.authorization).not.toBe(second!.headers.authorization);
  });

  it("maps a usage limit to 429 responses_request_failed with usageLimit, and logs one line", async () => {
    const user = await freshClient("acct_usage");
    mock.addFault({ fault: "usage_limit", accountId: "acct_usage" });
    const logsBefore = evidence.logs.length;
    const reply = await user.post("/responses", responsesBody("my private prompt text"));
    expect(reply.status).toBe(429);
    const body = reply.json<Record<string, unknown>>();
    expect(body).toEqual({
      error: "responses_request_failed",
      status: 429,
      detail: expect.stringMatching(/usage limit/i),
      usageLimit: { resetsAt: expect.any(Number), resetsInSeconds: expect.any(Number), planType: "plus" },
    });
    expect(reply.headers.get("x-codex-primary-used-percent")).toBe("100");
    const lines = evidence.logs.slice(logsBefore).filter((line) => line.message.includes("upstream /responses failed"));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message).toMatch(/^\[login-with-chatgpt\] upstream \/responses failed: status=429 .*type=usage_limit_reached/);
    expect(lines[0]!.message).not.toContain("my private prompt text");
  });

  it("maps the Cloudflare challenge to 403 responses_request_failed, logging what it was but not the page", async () => {
    const user = await freshClient("acct_cf");
    mock.addFault({ fault: "cloudflare_challenge", accountId: "acct_cf" });
    const logsBefore = evidence.logs.length;
    const reply = await user.post("/responses", responsesBody());
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual({ error: "responses_request_failed", status: 403, detail: expect.stringMatching(/Cloudflare/) });
    const line = evidence.logs.slice(logsBefore).find((l) => l.message.includes("upstream /responses failed"))!;
    expect(line.message).toMatch(/status=403 type=cloudflare_challenge request_id=[0-9a-f-]{36}$/);
    expect(line.message).not.toMatch(/DOCTYPE|html/i);
  });

  it("passes an upstream 5xx status through as responses_request_failed", async () => {
    const user = await freshClient("acct_500");
    mock.addFault({ fault: "server_error", accountId: "acct_500" });
    const reply = await user.post("/responses", responsesBody());
    expect(reply.status).toBe(500);
    expect(reply.json()).toMatchObject({ error: "responses_request_failed", status: 500 });
  });

  it("answers 502 responses_request_failed when the backend cannot be reached", async () => {
    const unreachable = await startHarness({
      evidence,
      sharedMock: mock,
      handler: {
        upstream: { codexBaseUrl: "http://127.0.0.1:9/backend-api/codex" },
        responsesProxy: { allowedModels: ["gpt-5.5"] },
      },
    });
    try {
      const user = unreachable.client();
      await signIn(unreachable, user);
      const reply = await user.post("/responses", responsesBody());
      expect(reply.status).toBe(502);
      expect(reply.json()).toMatchObject({ error: "responses_request_failed", status: 502 });
    } finally {
      await unreachable.close();
    }
  });
});

describe("proxyFetch", () => {
  it("runs /responses for the session in the request's cookie, whatever the URL", async () => {
    const cookie = `lwc_session=${client.cookie}`;
    const reply = await h.provider.proxyFetch(
      new Request("http://internal.invalid/any/path", {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify(responsesBody("from server code")),
      }),
      { csrf: "skip-server-call" },
    );
    expect(reply.status).toBe(200);
    expect(reply.headers.get("cache-control")).toBe("no-store");
    const text = await reply.text();
    evidence.bodies.push(text);
    expect(text).toContain("from server code");
    const anonymous = await h.provider.proxyFetch(
      new Request("http://internal.invalid/", { method: "POST", body: JSON.stringify(responsesBody()) }),
      { csrf: "skip-server-call" },
    );
    expect(anonymous.status).toBe(401);
    evidence.bodies.push(await anonymous.text());
  });
});

it("never leaks a token into a response body or a log line", () => {
  expect(evidence.issuedTokens.size).toBeGreaterThan(0);
  expect(evidence.logs.some((line) => line.message.includes("upstream /responses failed"))).toBe(true);
  expect(findLeakedTokens(evidence)).toEqual([]);
});
