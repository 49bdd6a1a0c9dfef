/**
 * An upstream that cannot be reached (a closed port on 127.0.0.1): every reply carries a fixed
 * sentence and never the upstream's address, which stays in the log line for the person deploying.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOGIN_NONCE_HEADER } from "@/lib/server/session/login-nonce";
import { closedPortUrl } from "@/test-support/upstream-helpers";
import { TestBrowserPeer } from "@/mock-upstream/voice/test-browser-peer";
import { createEvidence, findLeakedTokens, responsesBody, signIn, startHarness, type Harness, type HarnessOptions } from "./harness";

const evidence = createEvidence();
const harnesses: Harness[] = [];
let closed: string;
let peer: TestBrowserPeer;
let offer: string;

beforeAll(async () => {
  closed = await closedPortUrl();
  peer = new TestBrowserPeer();
  offer = await peer.offer();
});
afterAll(async () => {
  await peer?.close();
  for (const harness of harnesses) await harness.close();
});

async function harness(handler: HarnessOptions["handler"]): Promise<Harness> {
  const started = await startHarness({ evidence, handler, ...(harnesses[0] ? { sharedMock: harnesses[0].mock } : {}) });
  harnesses.push(started);
  return started;
}

/** The backend behind a closed port; sign-in still works (the identity provider is the mock). */
async function signedInAgainstClosedBackend(responsesProxy = {}) {
  const h = await harness({ upstream: { codexBaseUrl: `${closed}/backend-api/codex` }, responsesProxy });
  const client = h.client();
  await signIn(h, client);
  return { h, client };
}

/** One log line per upstream call that failed, in order (`routes`), each naming the address. */
function expectAddressOnlyInTheLog(replyText: string, logsBefore: number, ...routes: string[]) {
  const port = new URL(closed).port;
  expect(replyText).not.toContain("127.0.0.1");
  expect(replyText).not.toContain(`:${port}`);
  expect(replyText).not.toContain("http");
  const lines = evidence.logs.slice(logsBefore).map((line) => line.message);
  expect(lines).toHaveLength(routes.length);
  routes.forEach((route, index) => {
    expect(lines[index]).toContain(`[login-with-chatgpt] upstream ${route} failed: `);
    expect(lines[index]).toContain(`network_error upstream=${closed} `);
  });
}

describe("an unreachable upstream is never named in a reply", () => {
  it("POST /login (identity provider down)", async () => {
    const h = await harness({ upstream: { issuer: closed } });
    const logsBefore = evidence.logs.length;
    const reply = await h.client().post("/login");
    expect(reply.status).toBe(502);
    expect(reply.json()).toEqual({
      status: "error",
      error: "network_error",
      message: "Device code request failed: the provider could not be reached.",
    });
    expectAddressOnlyInTheLog(reply.text, logsBefore, "/login");
  });

  it("GET /models", async () => {
    const { client } = await signedInAgainstClosedBackend();
    const logsBefore = evidence.logs.length;
    const reply = await client.get("/models");
    expect(reply.status).toBe(502);
    expect(reply.json()).toEqual({
      models: [],
      error: "network_error",
      message: "Models request failed: the provider could not be reached.",
    });
    expectAddressOnlyInTheLog(reply.text, logsBefore, "/models");
  });

  it("POST /responses (the model call)", async () => {
    const { client } = await signedInAgainstClosedBackend({ allowedModels: ["gpt-5.5"] });
    const logsBefore = evidence.logs.length;
    const reply = await client.post("/responses", responsesBody());
    expect(reply.status).toBe(502);
    expect(reply.json()).toEqual({
      error: "responses_request_failed",
      status: 502,
      detail: "Responses request failed: the provider could not be reached.",
    });
    // With an allow-list the catalogue is still read, for the model's dialect; it failed too.
    expectAddressOnlyInTheLog(reply.text, logsBefore, "/models", "/responses");
  });

  it("POST /responses (the account's model list, checked first)", async () => {
    const { client } = await signedInAgainstClosedBackend();
    const logsBefore = evidence.logs.length;
    const reply = await client.post("/responses", responsesBody());
    expect(reply.status).toBe(502);
    expect(reply.json()).toEqual({
      error: "responses_request_failed",
      status: 502,
      detail: "Models request failed: the provider could not be reached.",
    });
    expectAddressOnlyInTheLog(reply.text, logsBefore, "/models");
  });

  it("POST /realtime", async () => {
    const { client } = await signedInAgainstClosedBackend();
    const logsBefore = evidence.logs.length;
    const reply = await client.post("/realtime", { sdp: offer });
    expect(reply.status).toBe(502);
    expect(reply.json()).toEqual({
      error: "realtime_request_failed",
      status: 502,
      detail: "The voice service could not be reached.",
    });
    expectAddressOnlyInTheLog(reply.text, logsBefore, "/realtime");
  });

  it("GET /models when the token refresh cannot reach the identity provider", async () => {
    // Signed in through a working provider, with a token that is about to expire ...
    const up = await harness({});
    up.mock.setOptions({ accessTokenTtlSeconds: 60 });
    const client = up.client();
    await signIn(up, client);
    up.mock.setOptions({ accessTokenTtlSeconds: 3600 });
    // ... then served by an instance (same store) whose identity provider is down.
    const down = await harness({ sessionStore: up.store, upstream: { issuer: closed } });
    const logsBefore = evidence.logs.length;
    const reply = await fetch(down.url("/models"), { headers: { cookie: `lwc_session=${client.cookie}` } });
    const text = await reply.text();
    expect(reply.status).toBe(502);
    expect(JSON.parse(text)).toEqual({
      models: [],
      error: "network_error",
      message: "Token refresh failed: the provider could not be reached.",
    });
    expect(text).not.toContain("127.0.0.1");
    const lines = evidence.logs.slice(logsBefore).map((line) => line.message);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`token refresh failed: code=network_error status=none upstream=${closed}`);
  });

  it("GET /status when the device poll cannot reach the identity provider", async () => {
    const up = await harness({});
    const client = up.client();
    expect((await client.post("/login")).status).toBe(200);
    const down = await harness({ sessionStore: up.store, upstream: { issuer: closed } });
    const headers: Record<string, string> = { cookie: `lwc_session=${client.cookie}` };
    if (client.loginNonce !== undefined) headers[LOGIN_NONCE_HEADER] = client.loginNonce;
    const logsBefore = evidence.logs.length;
    const reply = await fetch(down.url("/status"), { headers });
    const text = await reply.text();
    expect(reply.status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ status: "pending" });
    // (The pending state names the verification page, the working provider's: a public URL.)
    expect(text).not.toContain(new URL(closed).host);
    const lines = evidence.logs.slice(logsBefore).map((line) => line.message);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`device authorization poll failed, will retry: code=network_error status=none upstream=${closed}`);
  });
});

it("leaks no token", () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
});
