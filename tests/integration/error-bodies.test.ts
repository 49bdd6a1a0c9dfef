/**
 * The error replies byte for byte: status, and the body exactly as the server writes it (its fields
 * and their order), for each kind of refusal across the routes and both sign-ins. The other tests
 * compare parsed bodies; this one holds the bytes, so reshaping how the server builds its replies
 * cannot change what a client reads.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProviderHandler } from "@/lib/server/handler";
import { createMemoryStore } from "@/lib/stores/memory-store";
import { StoreUnavailableError, type KeyValueStore } from "@/lib/stores/types";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { createEvidence, findLeakedTokens, responsesBody, signIn, startHarness, TEST_SECRET, type Harness, type TestReply } from "./harness";
import { siwcHandlerOptions, signInWithSiwc } from "./siwc-proxy-support";

const NOT_SIGNED_IN = "Sign in first: this request has no authenticated session.";

let mock: MockUpstream;
let harness: Harness;
const evidence = createEvidence();

beforeAll(async () => {
  mock = await startMockUpstream();
  // A server offering both sign-ins, with agent voice configured (nothing is ever spawned here),
  // small limits so a test can reach them, and a small body limit.
  harness = await startHarness({
    evidence,
    sharedMock: mock,
    handler: {
      ...siwcHandlerOptions(mock, {
        responsesProxy: { rateLimit: { limit: 2, windowMs: 60_000 }, maxRequestBytes: 10_000 },
        realtime: { agentVoice: { command: "/nonexistent/codex", keepWarmProcess: false, sandbox: "off" } },
      }),
    },
  });
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await mock?.close();
  expect(findLeakedTokens(evidence)).toEqual([]);
});

function expectReply(reply: TestReply, status: number, body: string): void {
  expect({ status: reply.status, body: reply.text }).toEqual({ status, body });
}

async function deviceClient() {
  const client = harness.client();
  await signIn(harness, client);
  return client;
}

describe("error replies, byte for byte", () => {
  it("signed out: /models, /responses, /realtime and the agent-voice start", async () => {
    const client = harness.client();
    expectReply(await client.get("/models"), 401, `{"models":[],"error":"not_authenticated","message":"${NOT_SIGNED_IN}"}`);
    expectReply(await client.post("/responses", responsesBody()), 401, `{"error":"not_authenticated","message":"${NOT_SIGNED_IN}"}`);
    expectReply(await client.post("/realtime", { sdp: "v=0\r\n" }), 401, `{"error":"not_authenticated","message":"${NOT_SIGNED_IN}"}`);
    expectReply(await client.post("/realtime/app-server", { sdp: "v=0\r\n" }), 401, `{"error":"not_authenticated","message":"${NOT_SIGNED_IN}"}`);
    expectReply(await client.post("/siwc/notice"), 401, '{"error":"not_authenticated","message":"Sign in with ChatGPT first."}');
  });

  it("a foreign Origin", async () => {
    const reply = await harness.client().post("/login", undefined, { origin: "http://evil.example" });
    expectReply(reply, 403, '{"error":"origin_not_allowed","origin":"http://evil.example"}');
  });

  it("/responses: headers, body, model and rate limit", async () => {
    const client = await deviceClient();
    const body = responsesBody();
    expectReply(
      await client.post("/responses", body, { "x-login-with-provider-service-tier": "bogus" }),
      400,
      '{"error":"invalid_service_tier","serviceTier":"bogus"}',
    );
    expectReply(
      await client.post("/responses", body, { "x-login-with-provider-reasoning-effort": "bogus" }),
      400,
      '{"error":"invalid_reasoning_effort","reasoningEffort":"bogus"}',
    );
    expectReply(await client.post("/responses", "{"), 400, '{"error":"invalid_responses_request","message":"The request body must be JSON."}');
    expectReply(
      await client.post("/responses", { input: "hi" }),
      400,
      '{"error":"invalid_responses_request","message":"`model` must be a non-empty string"}',
    );
    expectReply(
      await client.post("/responses", { ...body, padding: "x".repeat(10_001) }),
      413,
      '{"error":"responses_request_too_large","maxRequestBytes":10000}',
    );
    expectReply(await client.post("/responses", { ...body, model: "no-such-model" }), 403, '{"error":"model_not_allowed","model":"no-such-model"}');

    for (let call = 0; call < 2; call += 1) expect((await client.post("/responses", body)).status).toBe(200);
    const limited = await client.post("/responses", body);
    const wait = limited.headers.get("retry-after");
    expectReply(limited, 429, `{"error":"rate_limited","retryAfterSeconds":${wait}}`);
  });

  it("/models over its limit", async () => {
    const client = await deviceClient();
    for (let call = 0; call < 2; call += 1) expect((await client.get("/models")).status).toBe(200);
    const limited = await client.get("/models");
    const wait = limited.headers.get("retry-after");
    expectReply(
      limited,
      429,
      `{"error":"rate_limited","models":[],"message":"Too many requests for this session. Try again shortly.","retryAfterSeconds":${wait}}`,
    );
  });

  it("upstream failures of /responses", async () => {
    const client = harness.client();
    await signIn(harness, client, { accountId: "acct_bytes_500" });
    harness.mock.addFault({ fault: "server_error", accountId: "acct_bytes_500" });
    const failed = await client.post("/responses", responsesBody());
    expect(failed.status).toBe(500);
    expect(failed.text).toMatch(/^\{"error":"responses_request_failed","status":500,"detail":"[^"]+"\}$/);
    harness.mock.clearFaults();
  });

  it("/realtime: the body and the transport", async () => {
    const client = await deviceClient();
    expectReply(
      await client.post("/realtime", { sdp: "hello" }),
      400,
      '{"error":"invalid_realtime_request","message":"`sdp`: must be an SDP offer (text starting with v=0)"}',
    );
    expectReply(
      await client.post("/realtime", { sdp: "v=0\r\n", session: { transport: "wm" } }),
      403,
      '{"error":"realtime_transport_not_allowed","transport":"wm"}',
    );
  });

  it("agent voice: an unknown live session", async () => {
    const client = await deviceClient();
    expectReply(await client.request("DELETE", "/realtime/app-server/no-such-session"), 404, '{"error":"realtime_session_not_found"}');
  });

  it("a Sign in with ChatGPT session: voice, agent voice, pictures and refused fields", async () => {
    const client = await signInWithSiwc(harness);
    const voice = "Voice is not available when you sign in with ChatGPT: plan usage covers text replies only.";
    const agent = "Agent voice is not available when you sign in with ChatGPT: plan usage covers text replies only.";
    expectReply(await client.post("/realtime", { sdp: "v=0\r\n" }), 403, `{"error":"not_available_with_siwc","message":"${voice}"}`);
    expectReply(await client.post("/realtime/app-server", { sdp: "v=0\r\n" }), 403, `{"error":"not_available_with_siwc","message":"${agent}"}`);
    expectReply(await client.get("/realtime/app-server/status"), 403, `{"error":"not_available_with_siwc","message":"${agent}"}`);
    expectReply(
      await client.post("/responses", responsesBody(undefined, { tools: [{ type: "image_generation" }] })),
      403,
      '{"error":"not_available_with_siwc","message":"Image generation is not available when you sign in with ChatGPT."}',
    );
    expectReply(
      await client.post("/responses", responsesBody(undefined, { temperature: 0.5 })),
      400,
      '{"error":"unsupported_field","param":"temperature","message":"`temperature` is not accepted with Sign in with ChatGPT. Leave it out and try again."}',
    );
    harness.mock.siwc.arm({ switch: "usage_limit_exceeded" });
    const limited = await client.post("/responses", responsesBody());
    expect(limited.status).toBe(429);
    expect(limited.text).toMatch(
      /^\{"error":"plan_usage_limit_reached","message":"You've reached the usage limit of your ChatGPT plan for this app\. [^"]+","status":429(,"upstreamRequestId":"[^"]+")?\}$/,
    );
  });

  it("a Sign in with ChatGPT session without plan usage", async () => {
    const client = await signInWithSiwc(harness, "identity_only");
    const message =
      "You signed in with ChatGPT without allowing plan usage, so this app cannot send requests on your ChatGPT plan. " +
      "Enable plan usage (Continue with ChatGPT again and allow it) to chat.";
    expectReply(await client.get("/models"), 403, `{"error":"plan_usage_not_granted","models":[],"message":"${message}"}`);
    expectReply(await client.post("/responses", responsesBody()), 403, `{"error":"plan_usage_not_granted","message":"${message}"}`);
  });

  it("proxyFetch without the browser's Origin", async () => {
    const reply = await harness.provider.proxyFetch(new Request("http://internal/api/provider/responses", { method: "POST", body: "{}" }));
    const message =
      'proxyFetch needs the browser request\'s Origin header for the CSRF check; pass { csrf: "skip-server-call" } for a call no browser request started.';
    expect({ status: reply.status, body: await reply.text() }).toEqual({ status: 403, body: JSON.stringify({ error: "origin_required", message }) });
  });
});

describe("error replies of other configurations, byte for byte", () => {
  const post = (provider: ReturnType<typeof createProviderHandler>, path: string) =>
    provider.handler(new Request(`http://127.0.0.1:3000/api/provider${path}`, { method: "POST" }));
  const get = (provider: ReturnType<typeof createProviderHandler>, path: string) =>
    provider.handler(new Request(`http://127.0.0.1:3000/api/provider${path}`));
  const read = async (reply: Response) => ({ status: reply.status, body: await reply.text() });

  it("sign-ins turned off", async () => {
    const siwcOnly = createProviderHandler({ secrets: [TEST_SECRET], signIn: { device: false, siwc: true }, logger: quiet });
    expect(await read(await post(siwcOnly, "/login"))).toEqual({
      status: 403,
      body: '{"error":"device_login_disabled","message":"Sign-in with a device code is turned off on this server."}',
    });
    const deviceOnly = createProviderHandler({ secrets: [TEST_SECRET], logger: quiet });
    expect(await read(await get(deviceOnly, "/siwc/start"))).toEqual({
      status: 403,
      body: '{"error":"siwc_disabled","message":"Sign in with ChatGPT is turned off on this server."}',
    });
  });

  it("the store out, and a bug", async () => {
    const unavailable = createProviderHandler({ secrets: [TEST_SECRET], sessionStore: failingStore(() => new StoreUnavailableError("down")), logger: quiet });
    expect(await read(await post(unavailable, "/login"))).toEqual({
      status: 503,
      body: '{"error":"store_unavailable","message":"The session store is unavailable. Try again shortly."}',
    });
    const broken = createProviderHandler({ secrets: [TEST_SECRET], sessionStore: failingStore(() => new Error("a bug")), logger: quiet });
    expect(await read(await post(broken, "/login"))).toEqual({ status: 500, body: '{"error":"internal_error"}' });
    // An outage is a StoreUnavailableError (lib/stores), not any error that carries its code.
    const lookalike = Object.assign(new Error("looks like an outage"), { code: "store_unavailable" });
    const confused = createProviderHandler({ secrets: [TEST_SECRET], sessionStore: failingStore(() => lookalike), logger: quiet });
    expect(await read(await post(confused, "/login"))).toEqual({ status: 500, body: '{"error":"internal_error"}' });
  });

  it("too many new sign-ins from one address", async () => {
    const provider = createProviderHandler({
      secrets: [TEST_SECRET],
      loginRateLimit: { limit: 1, windowMs: 60_000 },
      upstream: { issuer: harness.mock.issuer, codexBaseUrl: harness.mock.codexBaseUrl },
      clientAddress: () => "203.0.113.7",
      logger: quiet,
    });
    expect((await post(provider, "/login")).status).toBe(200);
    const limited = await post(provider, "/login");
    const wait = limited.headers.get("retry-after");
    expect(await read(limited)).toEqual({
      status: 429,
      body: `{"status":"error","error":"rate_limited","message":"Too many sign-in attempts from this address. Try again shortly.","retryAfterSeconds":${wait}}`,
    });
  });
});

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** A store whose every call fails with `error()`. */
function failingStore(error: () => Error): KeyValueStore {
  const memory = createMemoryStore();
  const fail = async (): Promise<never> => {
    throw error();
  };
  return { ...memory, get: fail, set: fail, delete: fail, setIfAbsent: fail, deleteIfEquals: fail, replaceIfEquals: fail };
}
