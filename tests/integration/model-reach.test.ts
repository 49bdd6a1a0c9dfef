/**
 * Clear answers when a model is out of reach, over real HTTP against the mock that gates models like
 * the backend: a model above our client version is `client_version_outdated` (and marked unavailable
 * in /models before anyone sends to it), a retired one is `model_not_supported`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CLIENT_VERSION } from "@/lib/upstream/config";
import { createEvidence, findLeakedTokens, PROMPT_MARKER, responsesBody, signIn, startHarness, type Harness, type TestClient } from "./harness";

const evidence = createEvidence();
let h: Harness;
let logsBefore = 0;

/** The mock's model released after our pinned version, and its floor (one minor above ours). */
const NEWER = "gpt-7-sol";
const [major, minor] = CLIENT_VERSION.split(".").map(Number);
const NEWER_FLOOR = `${major}.${minor! + 1}.0`;

beforeAll(async () => {
  h = await startHarness({ evidence, handler: { responsesProxy: { rateLimit: false } } });
});
afterAll(() => h.close());
beforeEach(() => {
  logsBefore = evidence.logs.length;
});

async function signedIn(harness: Harness, accountId: string): Promise<TestClient> {
  const client = harness.client();
  await signIn(harness, client, { accountId, email: `${accountId}@example.com` });
  return client;
}

describe("POST /responses for a model above our client version", () => {
  it("answers 400 client_version_outdated naming the model and LWC_CLIENT_VERSION, with the backend's words", async () => {
    const user = await signedIn(h, "acct_outdated");
    const reply = await user.post("/responses", responsesBody(`hi ${PROMPT_MARKER}`, { model: NEWER }));
    expect(reply.status).toBe(400);
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    const body = reply.json<Record<string, unknown>>();
    expect(body).toEqual({
      error: "client_version_outdated",
      status: 400,
      model: NEWER,
      message: expect.stringContaining("LWC_CLIENT_VERSION"),
      detail: `The '${NEWER}' model requires a newer version of Codex. Please upgrade to the latest app or CLI and try again.`,
    });
    expect(body.message).toContain(NEWER);
    expect(reply.text).not.toContain(PROMPT_MARKER);
    // The backend was asked with our version, and said no.
    const sent = h.mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!;
    expect(sent.headers.version).toBe(CLIENT_VERSION);
    const lines = evidence.logs.slice(logsBefore).map((line) => line.message);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/upstream \/responses failed: status=400/);
  });

  it("streams once LWC_CLIENT_VERSION reaches the model's floor", async () => {
    const raised = await startHarness({ evidence, sharedMock: h.mock, handler: { clientVersion: NEWER_FLOOR, responsesProxy: { rateLimit: false } } });
    try {
      const user = await signedIn(raised, "acct_raised");
      const reply = await user.post("/responses", responsesBody("hello", { model: NEWER }));
      expect(reply.status).toBe(200);
      expect(reply.text).toContain("response.completed");
      expect(h.mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!.headers.version).toBe(NEWER_FLOOR);
    } finally {
      await raised.close();
    }
  });
});

describe("POST /responses for a retired model", () => {
  it("answers 400 model_not_supported naming the model", async () => {
    const allowed = await startHarness({ evidence, sharedMock: h.mock, handler: { responsesProxy: { allowedModels: ["gpt-5.4"], rateLimit: false } } });
    try {
      const user = await signedIn(allowed, "acct_retired");
      const reply = await user.post("/responses", responsesBody("hello", { model: "gpt-5.4" }));
      expect(reply.status).toBe(400);
      expect(reply.json()).toEqual({
        error: "model_not_supported",
        status: 400,
        model: "gpt-5.4",
        message: expect.stringContaining("gpt-5.4"),
        detail: "The 'gpt-5.4' model is not supported when using Codex with a ChatGPT account.",
      });
    } finally {
      await allowed.close();
    }
  });
});

describe("POST /responses: reasoning efforts of today's models", () => {
  const EFFORT = "x-login-with-provider-reasoning-effort";
  const sentEffort = () => (h.mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!.body as { reasoning?: { effort?: string } }).reasoning?.effort;

  it("maps minimal to the model's lowest level when the model refuses minimal, and keeps it where it is listed", async () => {
    const user = await signedIn(h, "acct_minimal");
    const mapped = await user.post("/responses", responsesBody("hello", { model: "gpt-6.1-sol" }), { [EFFORT]: "minimal" });
    expect(mapped.status).toBe(200);
    expect(sentEffort()).toBe("low");
    const kept = await user.post("/responses", responsesBody("hello", { model: "gpt-5.4-mini" }), { [EFFORT]: "minimal" });
    expect(kept.status).toBe(200);
    expect(sentEffort()).toBe("minimal");
    // In the body (the AI SDK's providerOptions) too.
    const inBody = await user.post("/responses", responsesBody("hello", { model: "gpt-6-luna", reasoning: { effort: "minimal" } }));
    expect(inBody.status).toBe(200);
    expect(sentEffort()).toBe("low");
  });

  it("maps minimal with LWC_ALLOWED_MODELS set too (the account's catalogue says what the model takes)", async () => {
    const listed = await startHarness({ evidence, sharedMock: h.mock, handler: { responsesProxy: { allowedModels: ["gpt-6-sol"], rateLimit: false } } });
    try {
      const user = await signedIn(listed, "acct_minimal_listed");
      const reply = await user.post("/responses", responsesBody("hello", { model: "gpt-6-sol" }), { [EFFORT]: "minimal" });
      expect(reply.status).toBe(200);
      expect(sentEffort()).toBe("low");
    } finally {
      await listed.close();
    }
  });

  it("takes max, and refuses ultra (Codex only) as an invalid effort before calling upstream", async () => {
    const user = await signedIn(h, "acct_max");
    const max = await user.post("/responses", responsesBody("hello", { model: "gpt-6.1-sol" }), { [EFFORT]: "max" });
    expect(max.status).toBe(200);
    expect(sentEffort()).toBe("max");
    const calls = h.mock.requests({ path: "/backend-api/codex/responses" }).length;
    const ultra = await user.post("/responses", responsesBody("hello", { model: "gpt-6.1-sol" }), { [EFFORT]: "ultra" });
    expect(ultra.status).toBe(400);
    expect(ultra.json()).toEqual({ error: "invalid_reasoning_effort", reasoningEffort: "ultra" });
    expect(h.mock.requests({ path: "/backend-api/codex/responses" }).length).toBe(calls);
  });
});

describe("GET /models", () => {
  it("marks a model gated above our client version unavailable, with the reason, and leaves it out of `models`", async () => {
    const user = await signedIn(h, "acct_listing");
    const body = (await user.get("/models")).json<{ models: string[]; modelDetails: Record<string, unknown>[] }>();
    expect(body.models).not.toContain(NEWER);
    expect(body.models[0]).toBe("gpt-6.1-sol");
    const newer = body.modelDetails.find((model) => model.slug === NEWER);
    expect(newer).toMatchObject({
      slug: NEWER,
      displayName: "GPT-7 Sol",
      unavailable: { reason: "client_version_outdated", minimalClientVersion: NEWER_FLOOR, message: expect.stringContaining("LWC_CLIENT_VERSION") },
    });
    const usable = body.modelDetails.filter((model) => model.unavailable === undefined).map((model) => model.slug);
    expect(usable).toEqual(body.models);
  });

  it("offers max but never ultra (refused on direct calls), and minimal only where the model lists it", async () => {
    const user = await signedIn(h, "acct_efforts");
    const details = (await user.get("/models")).json<{ modelDetails: { slug: string; reasoningEfforts: string[] }[] }>().modelDetails;
    const efforts = (slug: string) => details.find((model) => model.slug === slug)!.reasoningEfforts;
    expect(efforts("gpt-6.1-sol")).toEqual(["low", "medium", "high", "xhigh", "max"]);
    expect(efforts("gpt-5.4-mini")).toEqual(["none", "minimal", "low", "medium", "high"]);
  });
});

it("never leaks a token into a response body or a log line", () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
});
