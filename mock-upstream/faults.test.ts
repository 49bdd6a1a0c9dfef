import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MOCK_CLIENT_ID, startMockUpstream, type MockUpstream } from "./server";
import { signInThroughMock, type MockTokenSet } from "./sign-in";
import { getModels, parseSse, postJson, postResponses, refresh, validBody } from "./test-utils";

let mock: MockUpstream;
let demo: MockTokenSet;
let other: MockTokenSet;
beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 1 });
  demo = await signInThroughMock(mock);
  other = await signInThroughMock(mock, { accountId: "acct_other", email: "other@example.com" });
});
afterAll(() => mock.close());
beforeEach(() => mock.clearFaults());

const respond = (body = validBody()) => postResponses(mock, demo, body);
const marked = (fault: string) => validBody({ input: [{ role: "user", content: `hello [[mock:${fault}]]` }] });
const usercode = () => postJson(`${mock.issuer}/api/accounts/deviceauth/usercode`, { client_id: MOCK_CLIENT_ID });

describe("backend faults", () => {
  it("server_error: next /responses or /models answers 500 JSON, once", async () => {
    mock.addFault({ fault: "server_error" });
    const failed = await respond();
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ error: { type: "server_error" } });
    expect((await respond()).status).toBe(200);
    mock.addFault({ fault: "server_error" });
    expect((await getModels(mock, demo)).status).toBe(500);
    expect((await getModels(mock, demo)).status).toBe(200);
  });

  it("usage_limit: 429 usage_limit_reached with plan and reset times", async () => {
    mock.addFault({ fault: "usage_limit" });
    const reply = await respond();
    expect(reply.status).toBe(429);
    const body = (await reply.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: "usage_limit_reached", plan_type: "plus", message: expect.any(String) });
    expect(body.error.resets_at as number).toBeGreaterThan(Date.now() / 1000);
    expect(body.error.resets_in_seconds as number).toBeGreaterThan(0);
    expect(reply.headers.get("x-codex-primary-used-percent")).toBe("100");
  });

  it("cloudflare_challenge: 403 HTML challenge page, on /models too", async () => {
    mock.addFault({ fault: "cloudflare_challenge", times: 2 });
    for (const reply of [await respond(), await getModels(mock, demo)]) {
      expect(reply.status).toBe(403);
      expect(reply.headers.get("content-type")).toContain("text/html");
      expect(reply.headers.get("cf-mitigated")).toBe("challenge");
      const html = await reply.text();
      expect(html).toContain("<title>Just a moment...</title>");
      expect(html).toContain("_cf_chl_opt");
      expect(html).toContain("/cdn-cgi/challenge-platform/");
    }
    expect((await respond()).status).toBe(200);
  });

  it("edge_unavailable: 503 HTML from the edge on /models, before authentication (no token needed), once", async () => {
    mock.addFault({ fault: "edge_unavailable" });
    const reply = await fetch(`${mock.codexBaseUrl}/models?client_version=0.169.0`);
    expect(reply.status).toBe(503);
    expect(reply.headers.get("content-type")).toContain("text/html");
    expect(reply.headers.get("server")).toBe("cloudflare");
    expect(await reply.text()).toContain("503 Service Temporarily Unavailable");
    expect((await fetch(`${mock.codexBaseUrl}/models?client_version=0.169.0`)).status).toBe(401);
  });

  it("fast_tier_rejected: only fires (and is only used up) when the body has a service_tier", async () => {
    mock.addFault({ fault: "fast_tier_rejected" });
    expect((await respond()).status).toBe(200);
    const rejected = await respond(validBody({ service_tier: "priority" }));
    expect(rejected.status).toBe(400);
    expect(await rejected.json()).toEqual({ detail: "Unsupported service_tier: priority" });
    expect((await respond(validBody({ service_tier: "priority" }))).status).toBe(200);
  });

  it("input_echoed: 400 invalid_value whose message quotes the newest user text, once", async () => {
    mock.addFault({ fault: "input_echoed" });
    const text = 'my "private" question\nwith two lines';
    const reply = await respond(validBody({ input: [{ role: "user", content: [{ type: "input_text", text }] }] }));
    expect(reply.status).toBe(400);
    const body = (await reply.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: "invalid_request_error", code: "invalid_value", param: "input" });
    expect(body.error.message).toContain(`"${text}"`);
    expect((await respond()).status).toBe(200);
  });

  it("stream_cut: stops mid-message without response.completed and closes the socket", async () => {
    mock.addFault({ fault: "stream_cut" });
    const reply = await respond();
    expect(reply.status).toBe(200);
    const reader = reply.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let failure: unknown;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeDefined();
    const events = parseSse(text);
    const types = events.map((e) => e.event);
    expect(types).toContain("response.output_text.delta");
    expect(types).not.toContain("response.output_text.done");
    expect(types).not.toContain("response.completed");
    const recorded = await mock.waitForRequest((r) => r.path === "/backend-api/codex/responses" && r.status === 200 && !r.completed);
    expect(recorded.aborted).toBe(false);
  });

  it("slow_first_byte: delays the headers by delayMs", async () => {
    mock.addFault({ fault: "slow_first_byte", delayMs: 300 });
    const started = Date.now();
    const reply = await respond();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(reply.status).toBe(200);
    await reply.text();
  });

  it("slow_stream: pauses delayMs between the chunks of the next stream, once", async () => {
    // From the request to the last chunk: a busy client can see two chunks land close together (or in
    // one read), but the last one can never arrive before the server's pauses have all passed.
    const timed = async (): Promise<{ reads: number; elapsedMs: number }> => {
      const startedAt = Date.now();
      const reply = await respond();
      const reader = reply.body!.getReader();
      let reads = 0;
      let lastAt = startedAt;
      for (;;) {
        const { done } = await reader.read();
        if (done) break;
        reads += 1;
        lastAt = Date.now();
      }
      return { reads, elapsedMs: lastAt - startedAt };
    };
    const delayMs = 120;
    mock.addFault({ fault: "slow_stream", delayMs });
    const slow = await timed();
    expect(slow.reads).toBeGreaterThan(2);
    expect(slow.elapsedMs).toBeGreaterThanOrEqual((slow.reads - 1) * delayMs);
    // Used up: the next stream runs at the usual pace (1 ms here), far quicker than the slow one.
    expect((await timed()).elapsedMs).toBeLessThan(slow.elapsedMs / 2);
  });

  it("backend_unauthorized: next backend call answers 401", async () => {
    mock.addFault({ fault: "backend_unauthorized" });
    const reply = await getModels(mock, demo);
    expect(reply.status).toBe(401);
    expect(await reply.json()).toMatchObject({ error: { code: "token_expired" } });
    expect((await getModels(mock, demo)).status).toBe(200);
  });
});

describe("identity faults", () => {
  it("dead_refresh_token: next refresh answers 401 refresh_token_invalidated and the login is dead", async () => {
    const tokens = await signInThroughMock(mock);
    mock.addFault({ fault: "dead_refresh_token" });
    const reply = await refresh(mock, tokens.refresh_token);
    expect(reply.status).toBe(401);
    expect(await reply.json()).toEqual({ error: expect.objectContaining({ code: "refresh_token_invalidated" }) });
    expect((await refresh(mock, tokens.refresh_token)).status).toBe(401);
  });

  it("refresh_server_error: next refresh answers 500 and the token still works afterwards", async () => {
    const tokens = await signInThroughMock(mock);
    mock.addFault({ fault: "refresh_server_error" });
    expect((await refresh(mock, tokens.refresh_token)).status).toBe(500);
    expect((await refresh(mock, tokens.refresh_token)).status).toBe(200);
  });

  it("device_code_disabled and device_code_server_error: usercode answers 404 / 500", async () => {
    mock.addFault({ fault: "device_code_disabled" });
    expect((await usercode()).status).toBe(404);
    mock.addFault({ fault: "device_code_server_error" });
    expect((await usercode()).status).toBe(500);
    expect((await usercode()).status).toBe(200);
  });
});

describe("fault rules", () => {
  it("count `times`, and times 0 lasts until cleared", async () => {
    mock.addFault({ fault: "server_error", times: 2 });
    expect((await respond()).status).toBe(500);
    expect((await respond()).status).toBe(500);
    expect((await respond()).status).toBe(200);
    mock.addFault({ fault: "server_error", times: 0 });
    for (let i = 0; i < 4; i++) expect((await respond()).status).toBe(500);
    mock.clearFaults();
    expect((await respond()).status).toBe(200);
  });

  it("scope to one account when accountId is set", async () => {
    mock.addFault({ fault: "usage_limit", accountId: "acct_other" });
    expect((await respond()).status).toBe(200);
    const otherReply = await postResponses(mock, other, validBody(), "acct_other");
    expect(otherReply.status).toBe(429);
    mock.addFault({ fault: "dead_refresh_token", accountId: "acct_other" });
    const demoLogin = await signInThroughMock(mock);
    expect((await refresh(mock, demoLogin.refresh_token)).status).toBe(200);
    const otherLogin = await signInThroughMock(mock, { accountId: "acct_other", email: "other@example.com" });
    expect((await refresh(mock, otherLogin.refresh_token)).status).toBe(401);
  });

  it.each([
    ["server_error", 500],
    ["usage_limit", 429],
    ["cloudflare_challenge", 403],
    ["backend_unauthorized", 401],
  ])("marker [[mock:%s]] triggers for that request only", async (fault, status) => {
    expect((await respond(marked(fault))).status).toBe(status);
    expect((await respond()).status).toBe(200);
  });

  it("markers trigger stream_cut, fast_tier_rejected and slow_first_byte too", async () => {
    const cut = await respond(marked("stream_cut"));
    await expect(cut.text()).rejects.toThrow();
    const tier = await respond({ ...marked("fast_tier_rejected"), service_tier: "priority" });
    expect(tier.status).toBe(400);
    expect(((await tier.json()) as { detail: string }).detail).toBe("Unsupported service_tier: priority");
    const started = Date.now();
    const slow = await respond(marked("slow_first_byte"));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    await slow.text();
  });

  it("rejects unknown faults over the control API", async () => {
    const reply = await postJson(`${mock.url}/__mock/faults`, { fault: "meteor_strike" });
    expect(reply.status).toBe(400);
  });
});
