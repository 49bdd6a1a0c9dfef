import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createProviderHandler } from "@/lib/server/handler";
import { MAX_REALTIME_DETAIL_CHARS } from "@/lib/server/voice/failure";
import { codexSession } from "@/lib/upstream/realtime";
import { CLIENT_VERSION } from "@/lib/upstream/config";
import { closedPortUrl } from "@/test-support/upstream-helpers";
import { CODEX_CALLS_PATH, startMockUpstream, type MockUpstream, type RecordedRequest } from "@/mock-upstream/server";
import { signInThroughMock } from "@/mock-upstream/sign-in";
import { TestBrowserPeer } from "@/mock-upstream/voice/test-browser-peer";
import { createEvidence, findLeakedTokens, signIn, startHarness, type Harness, type HarnessOptions, type TestClient } from "./harness";

const MAX_BYTES = 16 * 1024;
const evidence = createEvidence();
let mock: MockUpstream;
/** Every answer body the mock sent our handler, in order (read from a copy of the reply). */
const upstreamAnswers: string[] = [];
const harnesses: Harness[] = [];
let h: Harness;
let client: TestClient;
/** A real offer from a Node WebRTC peer; the mock answers it as often as asked. */
let offer: string;
const peers: TestBrowserPeer[] = [];

async function harness(options: HarnessOptions["handler"] = {}): Promise<Harness> {
  const started = await startHarness({
    evidence,
    sharedMock: mock,
    handler: {
      ...options,
      // The voice throttle has tests of its own below; the rest of this file makes many calls.
      realtime: { maxRequestBytes: MAX_BYTES, chatgptUrl: mock.url, rateLimit: false, ...options.realtime },
      upstream: {
        ...options.upstream,
        fetch: async (input, init) => {
          const reply = await fetch(input, init);
          if (String(input).includes("/realtime")) upstreamAnswers.push(await reply.clone().text());
          return reply;
        },
      },
    },
  });
  harnesses.push(started);
  return started;
}

async function signedIn(on: Harness, accountId: string): Promise<TestClient> {
  const fresh = on.client();
  await signIn(on, fresh, { accountId, email: `${accountId}@example.com` });
  return fresh;
}

beforeAll(async () => {
  mock = await startMockUpstream();
  h = await harness();
  client = await signedIn(h, "acct_demo");
  const peer = new TestBrowserPeer();
  peers.push(peer);
  offer = await peer.offer();
});
afterAll(async () => {
  await Promise.all(peers.map((peer) => peer.close()));
  for (const started of harnesses) await started.close();
  await mock.close();
});
beforeEach(() => {
  mock.clearFaults();
  evidence.logs.length = 0;
});

const realtimeCalls = (path = CODEX_CALLS_PATH): RecordedRequest[] => mock.requests({ path });
const failureLogs = () => evidence.logs.filter((line) => line.message.includes("upstream /realtime failed"));

describe("POST /realtime: success (codex, the default transport)", () => {
  it("answers 201 application/sdp with exactly the upstream answer, no-store", async () => {
    const before = upstreamAnswers.length;
    const reply = await client.post("/realtime", { sdp: offer, session: { voice: "maple" } });
    expect(reply.status).toBe(201);
    expect(reply.headers.get("content-type")).toBe("application/sdp");
    expect(reply.headers.get("cache-control")).toBe("no-store");
    expect(upstreamAnswers.length).toBe(before + 1);
    expect(reply.text).toBe(upstreamAnswers.at(-1));
    expect(reply.text.startsWith("v=0")).toBe(true);
  });

  it("sends the Codex call: JSON {sdp, session}, the login's token and account, the quicksilver headers", async () => {
    await client.post("/realtime", { sdp: offer, session: { voice: "maple", instructions: "Be brief." } });
    const sent = realtimeCalls().at(-1)!;
    expect(sent.query).toEqual({ intent: "quicksilver", architecture: "avas" });
    expect(sent.headers).toMatchObject({
      "content-type": "application/json",
      "openai-alpha": "quicksilver=v1",
      "chatgpt-account-id": "acct_demo",
      originator: "codex_cli_rs",
    });
    expect(sent.headers["user-agent"]).toMatch(/login-with-chatgpt/);
    // Codex sends its provider's `version` header on the voice call too.
    expect(sent.headers.version).toBe(CLIENT_VERSION);
    expect(sent.headers["x-session-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.headers["session-id"]).toBe(sent.headers["x-session-id"]);
    expect(evidence.issuedTokens.has(sent.headers.authorization!.slice("Bearer ".length))).toBe(true);
    expect(sent.body).toEqual({
      sdp: offer,
      session: codexSession({ transport: "codex", sdp: offer, voice: "maple", instructions: "Be brief." }),
    });
    expect(sent.body).toMatchObject({ session: { type: "quicksilver", model: "gpt-realtime-1.5", audio: { output: { voice: "maple" } } } });
  });

  it("a real WebRTC call connects through the route and gets the mock's events", async () => {
    const peer = new TestBrowserPeer();
    peers.push(peer);
    const reply = await client.post("/realtime", { sdp: await peer.offer() });
    expect(reply.status).toBe(201);
    await peer.accept(reply.text);
    await peer.connected();
    await peer.waitForEvent((event) => event.type === "session.created");
    await mock.waitForVoiceCall((call) => call.state === "connected" && call.accountId === "acct_demo");
    await peer.close();
  });
});

describe("POST /realtime: checks in order", () => {
  const big = () => JSON.stringify({ sdp: `v=0\r\n${"a=x\r\n".repeat(MAX_BYTES / 5)}` });

  it("Origin first: a foreign origin gets 403 origin_not_allowed, even signed out with a huge body", async () => {
    const anonymous = h.client();
    const reply = await anonymous.post("/realtime", big(), { origin: "https://evil.example" });
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual({ error: "origin_not_allowed", origin: "https://evil.example" });
    const same = await client.post("/realtime", { sdp: offer }, { origin: client.origin });
    expect(same.status).toBe(201);
  });

  it("then the session: signed out is 401 not_authenticated, even with a too-large or bad body", async () => {
    const anonymous = h.client();
    for (const body of [big(), "{not json", JSON.stringify({ sdp: offer, session: { transport: "vp" } })]) {
      const reply = await anonymous.post("/realtime", body);
      expect(reply.status).toBe(401);
      expect(reply.json()).toMatchObject({ error: "not_authenticated" });
    }
  });

  it("then the size: 413 realtime_request_too_large by Content-Length, before any parsing", async () => {
    const calls = realtimeCalls().length;
    const reply = await client.post("/realtime", big());
    expect(reply.status).toBe(413);
    expect(reply.json()).toEqual({ error: "realtime_request_too_large", maxRequestBytes: MAX_BYTES });
    const invalidToo = await client.post("/realtime", `{not json${" ".repeat(MAX_BYTES)}`);
    expect(invalidToo.json()).toEqual({ error: "realtime_request_too_large", maxRequestBytes: MAX_BYTES });
    expect(realtimeCalls().length).toBe(calls);
  });

  it("and by counting a body without Content-Length", async () => {
    const encoder = new TextEncoder();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 40) return controller.close();
        sent += 1;
        controller.enqueue(encoder.encode(sent === 1 ? '{"sdp":"v=0\\r\\n' : "a=x\\r\\n".repeat(100)));
      },
    });
    const response = await client.raw("POST", "/realtime", { headers: { "content-type": "application/json" }, body });
    const text = await response.text();
    evidence.bodies.push(text);
    expect(response.status).toBe(413);
    expect(JSON.parse(text)).toEqual({ error: "realtime_request_too_large", maxRequestBytes: MAX_BYTES });
  });

  it.each([
    ["invalid JSON", "{not json", /JSON/],
    ["a JSON array", "[1]", /object/],
    ["no sdp", JSON.stringify({ session: {} }), /^`sdp`: /],
    ["an sdp that is not an offer", JSON.stringify({ sdp: "hello" }), /^`sdp`: must be an SDP offer/],
    ["session not an object", JSON.stringify({ sdp: "v=0", session: "codex" }), /^`session`: /],
    ["an unknown transport", JSON.stringify({ sdp: "v=0", session: { transport: "pigeon" } }), /^`session.transport`: /],
    ["an unknown voice mode", JSON.stringify({ sdp: "v=0", session: { voiceMode: "loud" } }), /^`session.voiceMode`: /],
    ["a voice that is too long", JSON.stringify({ sdp: "v=0", session: { voice: "v".repeat(65) } }), /^`session.voice`: /],
  ])("then the shape: %s is 400 invalid_realtime_request naming the field", async (_name, body, message) => {
    const reply = await client.post("/realtime", body);
    expect(reply.status).toBe(400);
    expect(reply.json().error).toBe("invalid_realtime_request");
    expect(reply.json().message).toMatch(message);
  });

  it("a bad shape with a refused transport is 400 (shape before policy)", async () => {
    const reply = await client.post("/realtime", { sdp: "not an offer", session: { transport: "vp" } });
    expect(reply.status).toBe(400);
    expect(reply.json().message).toMatch(/^`sdp`/);
  });

  it("then the policy: a transport not configured is 403 realtime_transport_not_allowed, no upstream call", async () => {
    const before = mock.requests().length;
    const reply = await client.post("/realtime", { sdp: offer, session: { transport: "vp" } });
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual({ error: "realtime_transport_not_allowed", transport: "vp" });
    expect(mock.requests().length).toBe(before);
  });

  it("and a voice mode not configured is 403 realtime_mode_not_allowed (named, or the transport's own)", async () => {
    const strict = await harness({ realtime: { transports: ["codex", "vp", "vps"], voiceModes: ["standard"] } });
    const user = await signedIn(strict, "acct_modes");
    const before = mock.requests().length;
    const named = await user.post("/realtime", { sdp: offer, session: { voiceMode: "wingman" } });
    expect(named.status).toBe(403);
    expect(named.json()).toEqual({ error: "realtime_mode_not_allowed", voiceMode: "wingman" });
    const implied = await user.post("/realtime", { sdp: offer, session: { transport: "vp" } });
    expect(implied.json()).toEqual({ error: "realtime_mode_not_allowed", voiceMode: "advanced" });
    expect(mock.requests().length).toBe(before);
    expect((await user.post("/realtime", { sdp: offer, session: { transport: "vps" } })).status).toBe(201);
  });
});

describe("POST /realtime: the ChatGPT web transports", () => {
  let web: Harness;
  let user: TestClient;
  beforeAll(async () => {
    web = await harness({ realtime: { transports: ["codex", "wm", "vp", "vps"] } });
    user = await signedIn(web, "acct_web");
  });

  it("vp sends multipart sdp + session with the login's tokens and the web headers", async () => {
    const reply = await user.post("/realtime", { sdp: offer, session: { transport: "vp", voice: "ember", model: "gpt-5.5" } });
    expect(reply.status).toBe(201);
    expect(reply.text).toBe(upstreamAnswers.at(-1));
    const sent = realtimeCalls("/realtime/vp").at(-1)!;
    expect(sent.query).toEqual({ dcid: "0" });
    expect(sent.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent.headers).toMatchObject({
      accept: "application/sdp",
      "oai-language": "en-US",
      "chatgpt-account-id": "acct_web",
      origin: new URL(mock.url).origin,
      referer: `${new URL(mock.url).origin}/`,
    });
    expect(sent.headers["oai-device-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.headers["oai-session-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.headers).not.toHaveProperty("openai-beta");
    const body = sent.body as { sdp: string; session: string };
    expect(body.sdp).toBe(offer);
    const session = JSON.parse(body.session) as Record<string, unknown>;
    expect(session).toMatchObject({
      voice: "ember",
      voice_mode: "advanced",
      model_slug: "gpt-5.5",
      requested_default_model: "gpt-5.5",
      history_and_training_disabled: true,
      enable_message_streaming: true,
      client_tools: [],
      conversation_mode: { kind: "primary_assistant" },
      timezone: "UTC",
    });
    expect(session.voice_session_id).toBe(session.voice_status_request_id);
    expect(session).not.toHaveProperty("chat_mode");
  });

  it("wm without realtime.getAuth is refused with 501 realtime_auth_not_configured, no upstream call", async () => {
    const before = mock.requests().length;
    const reply = await user.post("/realtime", { sdp: offer, session: { transport: "wm" } });
    expect(reply.status).toBe(501);
    expect(reply.json()).toMatchObject({ error: "realtime_auth_not_configured", transport: "wm", message: expect.any(String) });
    expect(mock.requests().length).toBe(before);
  });

  it("realtime.getAuth supplies the wm credential; null for wm is 403 realtime_auth_unavailable", async () => {
    const webTokens = await signInThroughMock(mock, { accountId: "acct_webapp", email: "webapp@example.com" });
    evidence.issuedTokens.add(webTokens.access_token);
    const asked: string[] = [];
    let give = true;
    const withAuth = await harness({
      realtime: {
        transports: ["wm", "vp"],
        getAuth: async ({ transport, account }) => {
          asked.push(`${transport}:${account.accountId}`);
          return give ? { accessToken: webTokens.access_token, accountId: "acct_webapp" } : null;
        },
      },
    });
    const person = await signedIn(withAuth, "acct_person");
    const reply = await person.post("/realtime", { sdp: offer, session: { transport: "wm" } });
    expect(reply.status).toBe(201);
    const sent = realtimeCalls("/realtime/wm").at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${webTokens.access_token}`);
    expect(sent.headers["chatgpt-account-id"]).toBe("acct_webapp");
    expect(JSON.parse((sent.body as { session: string }).session)).toMatchObject({
      voice_mode: "wingman",
      history_and_training_disabled: false,
      chat_mode: "chat",
    });
    expect(asked).toEqual(["wm:acct_person"]);

    give = false;
    const refused = await person.post("/realtime", { sdp: offer, session: { transport: "wm" } });
    expect(refused.status).toBe(403);
    expect(refused.json()).toMatchObject({ error: "realtime_auth_unavailable", transport: "wm" });
    // vp falls back to the login's own tokens.
    expect((await person.post("/realtime", { sdp: offer, session: { transport: "vp" } })).status).toBe(201);
    expect(realtimeCalls("/realtime/vp").at(-1)!.headers["chatgpt-account-id"]).toBe("acct_person");
  });
});

describe("POST /realtime: upstream failures", () => {
  it.each([
    [
      "server_error",
      500,
      "The provider's voice service failed (HTTP 500, code internal_error). Try again shortly. " +
        "The provider said: An error occurred while processing your request. Please try again.",
    ],
    [
      "backend_unauthorized",
      401,
      "The provider refused the voice call's credentials (HTTP 401, code token_expired). " +
        "The provider said: Provided authentication token is expired. Please try signing in again.",
    ],
  ] as const)("%s passes the upstream status and the provider's words on as realtime_request_failed", async (fault, status, detail) => {
    // Twice: a 401 is retried once after a forced refresh.
    mock.addFault({ fault, accountId: "acct_demo", times: 2 });
    const reply = await client.post("/realtime", { sdp: offer });
    expect(reply.status).toBe(status);
    const body = reply.json<{ error: string; status: number; detail: string }>();
    expect(body).toEqual({ error: "realtime_request_failed", status, detail });
    expect(body.detail.length).toBeLessThanOrEqual(MAX_REALTIME_DETAIL_CHARS);
    expect(failureLogs()).toHaveLength(1);
    expect(failureLogs()[0]!.message).toMatch(new RegExp(`transport=codex status=${status} upstream=${status} code=\\w+ body="\\{`));
  });

  it("an upstream 401 gets one forced refresh and one retry with the new token", async () => {
    const user = await signedIn(h, "acct_retry");
    const refreshes = () =>
      mock.requests({ path: "/oauth/token" }).filter((r) => (r.body as { grant_type?: string }).grant_type === "refresh_token");
    const before = refreshes().length;
    mock.addFault({ fault: "backend_unauthorized", accountId: "acct_retry" });
    const reply = await user.post("/realtime", { sdp: offer });
    expect(reply.status).toBe(201);
    expect(refreshes().length).toBe(before + 1);
    const [first, second] = realtimeCalls().filter((r) => r.headers["chatgpt-account-id"] === "acct_retry");
    expect(first!.status).toBe(401);
    expect(second!.status).toBe(201);
    expect(second!.headers.authorization).not.toBe(first!.headers.authorization);
    expect(failureLogs()).toHaveLength(0);
  });

  it("a 2xx that is not an SDP is 502", async () => {
    mock.addFault({ fault: "realtime_non_sdp", accountId: "acct_demo" });
    const reply = await client.post("/realtime", { sdp: offer });
    expect(reply.status).toBe(502);
    expect(reply.json()).toEqual({
      error: "realtime_request_failed",
      status: 502,
      detail: "The voice service answered HTTP 200 without an SDP answer (content-type text/html).",
    });
    expect(reply.text).not.toContain("unavailable right now");
    expect(failureLogs()).toHaveLength(1);
  });

  it("an upstream that never answers is a 502 after the timeout, and the upstream request is cancelled", async () => {
    const slow = await harness({ upstream: { requestTimeoutMs: 400 } });
    const user = await signedIn(slow, "acct_hang");
    mock.addFault({ fault: "realtime_hang", accountId: "acct_hang" });
    const reply = await user.post("/realtime", { sdp: offer });
    expect(reply.status).toBe(502);
    expect(reply.json()).toEqual({
      error: "realtime_request_failed",
      status: 502,
      detail: "The voice service did not answer within 400 ms.",
    });
    await mock.waitForRequest((r) => r.path === CODEX_CALLS_PATH && r.headers["chatgpt-account-id"] === "acct_hang" && r.aborted);
    expect(failureLogs()).toHaveLength(1);
    // The address is for the person deploying: in the log line, never in the reply.
    expect(failureLogs()[0]!.message).toContain(`network_error upstream=${mock.url} (The voice service did not answer within 400 ms.)`);
  });

  it("an unreachable upstream is a 502 that does not name it", async () => {
    const closed = await closedPortUrl();
    const down = await harness({ upstream: { codexBaseUrl: `${closed}/backend-api/codex` } });
    const user = await signedIn(down, "acct_down");
    const reply = await user.post("/realtime", { sdp: offer });
    expect(reply.status).toBe(502);
    expect(reply.json()).toEqual({ error: "realtime_request_failed", status: 502, detail: "The voice service could not be reached." });
    expect(failureLogs()[0]!.message).toContain(`network_error upstream=${closed} (The voice service could not be reached.)`);
  });

  it("a client that goes away cancels the upstream call", async () => {
    mock.addFault({ fault: "realtime_hang", accountId: "acct_demo" });
    const controller = new AbortController();
    const pending = client.raw("POST", "/realtime", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sdp: offer }),
      signal: controller.signal,
    });
    await mock.waitForRequest((r) => r.path === CODEX_CALLS_PATH && r.headers["chatgpt-account-id"] === "acct_demo" && r.status === 0 && !r.aborted);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await mock.waitForRequest((r) => r.path === CODEX_CALLS_PATH && r.headers["chatgpt-account-id"] === "acct_demo" && r.aborted);
  });
});

describe("POST /realtime: tokens", () => {
  it("refreshes a near-expiry token (once) before the call and sends the new one", async () => {
    const shortLived = await harness();
    mock.setOptions({ accessTokenTtlSeconds: 60 });
    const user = await signedIn(shortLived, "acct_expiring");
    mock.setOptions({ accessTokenTtlSeconds: 3600 });
    const refreshes = () =>
      mock.requests({ path: "/oauth/token" }).filter((r) => (r.body as { grant_type?: string }).grant_type === "refresh_token");
    const before = refreshes().length;
    const reply = await user.post("/realtime", { sdp: offer });
    expect(reply.status).toBe(201);
    expect(refreshes().length).toBe(before + 1);
    const sent = realtimeCalls().at(-1)!;
    expect(sent.receivedAt).toBeGreaterThanOrEqual(refreshes().at(-1)!.receivedAt);
    expect(sent.headers["chatgpt-account-id"]).toBe("acct_expiring");
    // The refreshed (long-lived) token was used: no second refresh on the next call.
    expect((await user.post("/realtime", { sdp: offer })).status).toBe(201);
    expect(refreshes().length).toBe(before + 1);
  });

  it("a dead refresh token signs the user out: 401 not_authenticated, no realtime call", async () => {
    const shortLived = await harness();
    mock.setOptions({ accessTokenTtlSeconds: 60 });
    const user = await signedIn(shortLived, "acct_dead_rt");
    mock.setOptions({ accessTokenTtlSeconds: 3600 });
    mock.addFault({ fault: "dead_refresh_token", accountId: "acct_dead_rt" });
    const calls = realtimeCalls().length;
    const reply = await user.post("/realtime", { sdp: offer });
    expect(reply.status).toBe(401);
    expect(reply.json()).toMatchObject({ error: "not_authenticated" });
    expect(realtimeCalls().length).toBe(calls);
  });
});

describe("POST /realtime: the voice model is a setting (LWC_REALTIME_MODEL)", () => {
  it("the codex call asks for the configured model when the request names none; a request's own model still wins", async () => {
    const configured = await harness({ realtime: { model: "gpt-live-1-codex" } });
    const user = await signedIn(configured, "acct_voice_model_setting");
    expect((await user.post("/realtime", { sdp: offer })).status).toBe(201);
    expect(realtimeCalls().at(-1)!.body).toMatchObject({ session: { type: "quicksilver", model: "gpt-live-1-codex" } });
    expect((await user.post("/realtime", { sdp: offer, session: { model: "gpt-realtime-1.5" } })).status).toBe(201);
    expect(realtimeCalls().at(-1)!.body).toMatchObject({ session: { model: "gpt-realtime-1.5" } });
  });

  it("unset, it is gpt-realtime-1.5, what codex 0.171.0 sends (docs/upstream.md)", async () => {
    expect((await client.post("/realtime", { sdp: offer })).status).toBe(201);
    expect(realtimeCalls().at(-1)!.body).toMatchObject({ session: { model: "gpt-realtime-1.5" } });
  });

  it("the web transports keep their own model (auto): the setting is the codex voice model", async () => {
    const configured = await harness({ realtime: { model: "gpt-live-1-codex", transports: ["codex", "vp"] } });
    const user = await signedIn(configured, "acct_voice_model_web");
    expect((await user.post("/realtime", { sdp: offer, session: { transport: "vp" } })).status).toBe(201);
    const fields = mock.requests({ path: "/realtime/vp" }).at(-1)!.body as { session: string };
    expect(JSON.parse(fields.session)).toMatchObject({ model_slug: "auto", requested_default_model: "auto" });
  });

  it("a handler whose model is off its allow-list does not start, naming both options", () => {
    expect(() =>
      createProviderHandler({ realtime: { model: "gpt-live-1-codex", allowedModels: ["gpt-realtime-1.5"] }, logger: { info() {}, warn() {}, error() {} } }),
    ).toThrow(/realtime\.model.*realtime\.allowedModels/);
    expect(() => createProviderHandler({ realtime: { allowedModels: ["gpt-live-1-codex"] }, logger: { info() {}, warn() {}, error() {} } })).toThrow(
      /realtime\.model/,
    );
  });
});

describe("POST /realtime: the voice model allow-list (LWC_ALLOWED_REALTIME_MODELS)", () => {
  it("a session.model off the list is 403 realtime_model_not_allowed with no upstream call; a listed one or none passes", async () => {
    const listed = await harness({ realtime: { allowedModels: ["gpt-realtime-1.5"] } });
    const user = await signedIn(listed, "acct_voice_models");
    const calls = realtimeCalls().length;
    const refused = await user.post("/realtime", { sdp: offer, session: { model: "gpt-realtime-expensive" } });
    expect(refused.status).toBe(403);
    expect(refused.json()).toEqual({ error: "realtime_model_not_allowed", model: "gpt-realtime-expensive" });
    expect(realtimeCalls().length).toBe(calls);
    expect((await user.post("/realtime", { sdp: offer, session: { model: "gpt-realtime-1.5" } })).status).toBe(201);
    expect((await user.post("/realtime", { sdp: offer })).status).toBe(201);
  });

  it("unset, any model passes (as before)", async () => {
    const reply = await client.post("/realtime", { sdp: offer, session: { model: "gpt-realtime-anything" } });
    expect(reply.status).toBe(201);
  });

  it("is read from LWC_ALLOWED_REALTIME_MODELS (comma list), apart from LWC_ALLOWED_MODELS", async () => {
    const secret = "realtime-models-test-secret-0123456789abcdef";
    vi.stubEnv("LWC_SECRET", secret);
    const { optionsFromEnv } = await import("@/lib/provider-app");
    vi.unstubAllEnvs();
    const options = optionsFromEnv({ LWC_SECRET: secret, LWC_ALLOWED_REALTIME_MODELS: " gpt-realtime-1.5 , gpt-live-1 ", LWC_ALLOWED_MODELS: "gpt-5.5" });
    expect(options.realtime?.allowedModels).toEqual(["gpt-realtime-1.5", "gpt-live-1"]);
    expect(options.responsesProxy?.allowedModels).toEqual(["gpt-5.5"]);
    expect(optionsFromEnv({ LWC_SECRET: secret }).realtime?.allowedModels).toBeUndefined();
  });
});

describe("POST /realtime: the voice throttle (LWC_REALTIME_RATE_LIMIT_PER_MINUTE)", () => {
  it("answers 429 rate_limited with retry-after past the limit, as /responses does, and makes no upstream call", async () => {
    const limited = await harness({ realtime: { rateLimit: { limit: 2, windowMs: 60_000 } } });
    limited.clock.alignToWindowStart(60_000);
    const user = await signedIn(limited, "acct_voice_throttle");
    expect((await user.post("/realtime", { sdp: offer })).status).toBe(201);
    expect((await user.post("/realtime", { sdp: offer })).status).toBe(201);
    const calls = realtimeCalls().length;
    const refused = await user.post("/realtime", { sdp: offer });
    expect(refused.status).toBe(429);
    const { retryAfterSeconds } = refused.json<{ retryAfterSeconds: number }>();
    expect(refused.json()).toEqual({ error: "rate_limited", retryAfterSeconds: expect.any(Number) });
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(refused.headers.get("retry-after")).toBe(String(retryAfterSeconds));
    expect(realtimeCalls().length).toBe(calls);
    // Per login: another user is not affected.
    const other = await signedIn(limited, "acct_voice_throttle_2");
    expect((await other.post("/realtime", { sdp: offer })).status).toBe(201);
  });

  it("is 12 per minute by default, from LWC_REALTIME_RATE_LIMIT_PER_MINUTE", async () => {
    const secret = "realtime-throttle-test-secret-0123456789abcdef";
    vi.stubEnv("LWC_SECRET", secret);
    const { optionsFromEnv } = await import("@/lib/provider-app");
    vi.unstubAllEnvs();
    expect(optionsFromEnv({ LWC_SECRET: secret }).realtime?.rateLimit).toEqual({ limit: 12, windowMs: 60_000 });
    expect(optionsFromEnv({ LWC_SECRET: secret, LWC_REALTIME_RATE_LIMIT_PER_MINUTE: "5" }).realtime?.rateLimit).toEqual({ limit: 5, windowMs: 60_000 });
    const { resolveRealtimeOptions } = await import("@/lib/server/voice/options");
    expect(resolveRealtimeOptions({}).rateLimit).toEqual({ limit: 12, windowMs: 60_000 });
  });
});

describe("realtime off", () => {
  it("realtime.enabled false (LWC_REALTIME=off) makes /realtime an unknown path", async () => {
    const off = await harness({ realtime: { enabled: false } });
    const user = await signedIn(off, "acct_off");
    const reply = await user.post("/realtime", { sdp: offer });
    expect(reply.status).toBe(404);
    expect(reply.text).toBe("Not Found");
  });

  it("LWC_REALTIME=off through optionsFromEnv", async () => {
    const secret = "realtime-off-test-secret-0123456789abcdef";
    // The module also builds the app's own handler from process.env when it loads.
    vi.stubEnv("LWC_SECRET", secret);
    const { optionsFromEnv } = await import("@/lib/provider-app");
    vi.unstubAllEnvs();
    const options = optionsFromEnv({ LWC_REALTIME: "off", LWC_SECRET: secret });
    const handler = createProviderHandler({ ...options, logger: { info() {}, warn() {}, error() {} } });
    const request = () =>
      new Request("http://127.0.0.1/api/provider/realtime", { method: "POST", body: JSON.stringify({ sdp: offer }) });
    expect((await handler.handler(request())).status).toBe(404);
    const on = createProviderHandler({ ...optionsFromEnv({ LWC_SECRET: secret }), logger: { info() {}, warn() {}, error() {} } });
    expect((await on.handler(request())).status).toBe(401);
  });
});

it("never leaks a token into a reply or a log line", () => {
  expect(evidence.issuedTokens.size).toBeGreaterThan(0);
  expect(findLeakedTokens(evidence)).toEqual([]);
});
