import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CLIENT_VERSION } from "@/lib/upstream/config";
import { closedPortUrl } from "@/test-support/upstream-helpers";
import { createEvidence, findLeakedTokens, responsesBody, signIn, startHarness, type Harness } from "./harness";

const evidence = createEvidence();
let h: Harness;
/** Above the mock's newest model, which it gates one minor above the pinned client version. */
const [major, minor] = CLIENT_VERSION.split(".").map(Number) as [number, number];
const ABOVE_EVERY_GATE = `${major}.${minor + 1}.1`;

beforeAll(async () => {
  h = await startHarness({ evidence, handler: { clientVersion: ABOVE_EVERY_GATE } });
});
afterAll(() => h.close());
beforeEach(() => h.mock.clearFaults());

const modelCalls = () => h.mock.requests({ path: "/backend-api/codex/models" });

describe("GET /models", () => {
  it("answers 401 not_authenticated without a session (and for a pending one)", async () => {
    const client = h.client();
    const none = await client.get("/models");
    expect(none.status).toBe(401);
    expect(none.json()).toEqual({ models: [], error: "not_authenticated", message: expect.any(String) });
    await client.post("/login");
    expect((await client.get("/models")).status).toBe(401);
  });

  it("lists the account's listed models in priority order, sending the configured client version", async () => {
    const client = h.client();
    await signIn(h, client);
    const reply = await client.get("/models");
    expect(reply.status).toBe(200);
    const body = reply.json<{ models: string[]; modelDetails: unknown[] }>();
    // This client version reaches every model of the mock, the one gated one minor above the pinned version too.
    expect(body.models).toEqual(["gpt-6.1-sol", "gpt-6-astra", "gpt-6-sol", "gpt-6-luna", "gpt-7-sol", "gpt-5.5", "gpt-5.4-mini"]);
    const last = modelCalls().at(-1)!;
    expect(last.query.client_version).toBe(ABOVE_EVERY_GATE);
    expect(last.headers["chatgpt-account-id"]).toBe("acct_demo");
  });

  it("lists what a free plan may use", async () => {
    const client = h.client();
    await signIn(h, client, { accountId: "acct_free", plan: "free", email: "free@example.com" });
    expect((await client.get("/models")).json<{ models: string[] }>().models).toEqual(["gpt-5.4-mini"]);
  });

  it("describes each listed model beside the slugs (modelDetails extension)", async () => {
    const client = h.client();
    await signIn(h, client);
    const body = (await client.get("/models")).json<{ models: string[]; modelDetails: { slug: string }[] }>();
    expect(body.modelDetails.map((model) => model.slug)).toEqual(body.models);
    expect(body.modelDetails[0]).toEqual({
      slug: "gpt-6.1-sol",
      displayName: "GPT-6.1 Sol",
      reasoningEfforts: ["low", "medium", "high", "xhigh", "max"],
      defaultReasoningEffort: "low",
      serviceTiers: ["priority"],
      inputModalities: ["text", "image"],
    });
    expect(body.modelDetails.find((model) => model.slug === "gpt-5.4-mini")).toMatchObject({
      serviceTiers: [],
      reasoningEfforts: ["none", "minimal", "low", "medium", "high"],
      inputModalities: ["text"],
    });
  });

  it("lists only the models LWC_ALLOWED_MODELS allows, in the list and in its details", async () => {
    // The pinned client version, so gpt-7-sol is described as unavailable: the allow-list limits that too.
    const allowed = await startHarness({
      evidence,
      sharedMock: h.mock,
      handler: { responsesProxy: { allowedModels: ["gpt-6.1-sol", "gpt-7-sol", "gpt-5.5", "gpt-unlisted"] } },
    });
    try {
      const client = allowed.client();
      await signIn(allowed, client);
      const reply = await client.get("/models");
      expect(reply.status).toBe(200);
      const body = reply.json<{ models: string[]; modelDetails: { slug: string; unavailable?: unknown }[] }>();
      // Only what the account lists and the allow-list names; a slug the account does not list has no details to show.
      expect(body.models).toEqual(["gpt-6.1-sol", "gpt-5.5"]);
      expect(body.modelDetails.map((model) => model.slug)).toEqual(["gpt-6.1-sol", "gpt-7-sol", "gpt-5.5"]);
      expect(body.modelDetails.filter((model) => model.unavailable).map((model) => model.slug)).toEqual(["gpt-7-sol"]);
      // What the picker offers, each answers: nothing listed is refused with 403.
      for (const model of body.models) {
        const answer = await client.post("/responses", responsesBody("hi", { model }));
        expect(answer.status).toBe(200);
      }
    } finally {
      await allowed.close();
    }
  });

  it("maps an upstream 5xx to its status with models_request_failed", async () => {
    const client = h.client();
    await signIn(h, client, { accountId: "acct_5xx" });
    h.mock.addFault({ fault: "server_error", accountId: "acct_5xx" });
    const reply = await client.get("/models");
    expect(reply.status).toBe(500);
    expect(reply.json()).toEqual({ models: [], error: "models_request_failed", message: expect.any(String) });
  });

  it("maps the Cloudflare challenge to 403 models_request_failed with a clear message", async () => {
    const client = h.client();
    await signIn(h, client, { accountId: "acct_cf" });
    h.mock.addFault({ fault: "cloudflare_challenge", accountId: "acct_cf" });
    const reply = await client.get("/models");
    expect(reply.status).toBe(403);
    expect(reply.json()).toMatchObject({ models: [], error: "models_request_failed" });
    expect(reply.json<{ message: string }>().message).toMatch(/Cloudflare/);
    expect(reply.text).not.toContain("<html");
  });

  it("refreshes once and retries when the backend answers 401", async () => {
    const client = h.client();
    await signIn(h, client, { accountId: "acct_401" });
    h.mock.addFault({ fault: "backend_unauthorized", accountId: "acct_401" });
    const refreshes = h.mock.requests({ path: "/oauth/token" }).length;
    const reply = await client.get("/models");
    expect(reply.status).toBe(200);
    expect(reply.json<{ models: string[] }>().models).toContain("gpt-6.1-sol");
    expect(h.mock.requests({ path: "/oauth/token" }).length).toBe(refreshes + 1);
  });

  it("maps an unreachable backend to 502 network_error", async () => {
    const broken = await startHarness({
      evidence,
      sharedMock: h.mock,
      handler: { upstream: { codexBaseUrl: `${await closedPortUrl()}/backend-api/codex` } },
    });
    try {
      const client = broken.client();
      await signIn(broken, client);
      const reply = await client.get("/models");
      expect(reply.status).toBe(502);
      expect(reply.json()).toMatchObject({ models: [], error: "network_error" });
    } finally {
      await broken.close();
    }
  });
});

describe("enableResponsesProxy: false", () => {
  it("makes /models and /responses unknown paths (plain-text 404) and keeps login working", async () => {
    const off = await startHarness({ evidence, sharedMock: h.mock, handler: { enableResponsesProxy: false } });
    try {
      const client = off.client();
      await signIn(off, client);
      for (const [method, path] of [["GET", "/models"], ["POST", "/responses"], ["OPTIONS", "/models"]] as const) {
        const reply = await client.request(method, path);
        expect(reply.status).toBe(404);
        expect(reply.headers.get("content-type")).toMatch(/^text\/plain/);
      }
      expect((await client.get("/session")).json().status).toBe("authenticated");
      const proxied = await off.provider.proxyFetch(new Request("http://x/anything", { method: "POST" }));
      expect(proxied.status).toBe(404);
    } finally {
      await off.close();
    }
  });
});

it("never leaks a token into a response body or a log line", () => {
  expect(evidence.issuedTokens.size).toBeGreaterThan(0);
  expect(findLeakedTokens(evidence)).toEqual([]);
});
