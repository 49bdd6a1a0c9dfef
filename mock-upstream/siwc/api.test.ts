import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "../server";
import { postSiwcResponses, signInSiwc, siwcBody, sseData } from "./test-flow";

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

function getModels(accessToken: string | undefined, query = "") {
  return fetch(`${mock.siwcApiBase}/models${query}`, { headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {} });
}

describe("GET /v1/models", () => {
  it("answers {models} in a fixed order with list and hide entries; Bearer required", async () => {
    const { tokens } = await signInSiwc(mock);
    const reply = await getModels(tokens.access_token);
    expect(reply.status).toBe(200);
    const { models } = (await reply.json()) as { models: { slug: string; display_name: string; visibility: string }[] };
    expect(models.map((m) => [m.slug, m.visibility])).toEqual([
      ["gpt-5.5", "list"],
      ["gpt-5.5-mini", "list"],
      ["gpt-5.4", "hide"],
      ["gpt-6.1-terra", "list"],
      ["codex-auto-review", "hide"],
    ]);
    const missing = await getModels(undefined);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ detail: expect.any(String) });
    expect((await getModels("not-a-token")).status).toBe(401);
  });

  it("client_version hides newer models; pro and the team workspace see other catalogs", async () => {
    const { tokens } = await signInSiwc(mock);
    const old = (await (await getModels(tokens.access_token, "?client_version=0.150.0")).json()) as { models: { slug: string }[] };
    expect(old.models.map((m) => m.slug)).not.toContain("gpt-6.1-terra");
    const pro = await signInSiwc(mock, { fields: { email: "pro@example.com", plan: "pro", workspace: "team" } });
    const proModels = (await (await getModels(pro.tokens.access_token)).json()) as { models: { slug: string }[] };
    expect(proModels.models.map((m) => m.slug)).toEqual(["gpt-5.5", "gpt-5.5-pro", "gpt-5.5-mini", "gpt-5.4", "codex-auto-review"]);
  });
});

describe("POST /v1/responses", () => {
  it("streams created, output_item.added, deltas, output_item.done and completed with usage", async () => {
    const { tokens } = await signInSiwc(mock);
    const reply = await postSiwcResponses(mock, tokens.access_token, siwcBody());
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(reply.headers.get("x-request-id")).toMatch(/^req_/);
    const text = await reply.text();
    expect(text).toMatch(/^event: response.created\ndata: \{/);
    const events = sseData(text) as Record<string, unknown>[];
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.output_item.added");
    expect(types).toContain("response.output_item.done");
    expect(types.at(-1)).toBe("response.completed");
    const deltas = events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join("");
    expect(deltas).toBe('You said: "hello there".');
    const completed = events.at(-1)!.response as Record<string, unknown>;
    expect(completed).toMatchObject({ status: "completed", usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) } });
    expect(mock.siwc.snapshot().usage).toEqual([{ clientId: expect.stringMatching(/^oaiapp_/), hostId: expect.stringMatching(/^urn:uuid:/), count: 1 }]);
  });

  it("without event: lines when set so", async () => {
    mock.siwc.configure({ sseEventLines: false });
    const { tokens } = await signInSiwc(mock);
    const text = await (await postSiwcResponses(mock, tokens.access_token, siwcBody())).text();
    expect(text).not.toContain("event:");
    expect((sseData(text).at(-1) as Record<string, unknown>).type).toBe("response.completed");
  });

  it("401 {detail} without a valid token, or with an identity-only one", async () => {
    const identity = await signInSiwc(mock, { action: "identity_only" });
    for (const token of ["garbage", identity.tokens.access_token]) {
      const reply = await postSiwcResponses(mock, token, siwcBody());
      expect(reply.status).toBe(401);
      expect(await reply.json()).toEqual({ detail: expect.any(String) });
    }
  });

  it("401 once the access token has expired (by the mock's clock)", async () => {
    const { tokens } = await signInSiwc(mock);
    mock.siwc.advanceClock(3601);
    expect((await postSiwcResponses(mock, tokens.access_token, siwcBody())).status).toBe(401);
  });

  it("a string input is 422 list_type; store and stream are enforced", async () => {
    const { tokens } = await signInSiwc(mock);
    const string = await postSiwcResponses(mock, tokens.access_token, siwcBody({ input: "hi" }));
    expect(string.status).toBe(422);
    expect(await string.json()).toMatchObject({ detail: [{ type: "list_type", loc: ["body", "input"] }] });
    for (const overrides of [{ store: true }, { stream: false }, { store: undefined }]) {
      const reply = await postSiwcResponses(mock, tokens.access_token, siwcBody(overrides));
      expect(reply.status, JSON.stringify(overrides)).toBe(400);
      expect(await reply.json()).toEqual({ detail: expect.any(String) });
    }
  });

  it.each([
    ["temperature", { temperature: 0.2 }, "temperature"],
    ["max_output_tokens", { max_output_tokens: 100 }, "max_output_tokens"],
    ["metadata", { metadata: {} }, "metadata"],
    ["previous_response_id", { previous_response_id: "resp_1" }, "previous_response_id"],
    ["a system message", { input: [{ role: "user", content: "a" }, { role: "system", content: "b" }] }, "input[1].role"],
    ["image generation", { tools: [{ type: "image_generation" }] }, "tools[0]"],
    ["a top-level function", { tools: [{ type: "namespace", name: "ns", tools: [] }, { type: "function", name: "f" }] }, "tools[1]"],
    ["the priority tier", { service_tier: "priority" }, "service_tier"],
  ])("refuses %s with 400 subscription_sharing_unsupported_capability naming the param", async (_name, overrides, param) => {
    const { tokens } = await signInSiwc(mock);
    const reply = await postSiwcResponses(mock, tokens.access_token, siwcBody(overrides));
    expect(reply.status).toBe(400);
    expect(await reply.json()).toEqual({ error: expect.objectContaining({ code: "subscription_sharing_unsupported_capability", param }) });
  });

  it("accepts namespaced functions, web_search, developer messages and instructions", async () => {
    const { tokens } = await signInSiwc(mock);
    const body = siwcBody({
      tools: [{ type: "namespace", name: "app", tools: [{ type: "function", name: "f", parameters: {} }] }, { type: "web_search" }],
      input: [{ role: "developer", content: "be kind" }, { role: "user", content: "hi" }],
    });
    expect((await postSiwcResponses(mock, tokens.access_token, body)).status).toBe(200);
  });

  it("an unknown model fails in the stream with model_not_found", async () => {
    const { tokens } = await signInSiwc(mock);
    const events = sseData(await (await postSiwcResponses(mock, tokens.access_token, siwcBody({ model: "gpt-9" }))).text()) as Record<string, unknown>[];
    expect(events.at(-1)).toMatchObject({ type: "response.failed", response: { error: { code: "model_not_found" } } });
  });

  it("free accounts are not eligible (403); a revoked grant's access token stops working (401)", async () => {
    const free = await signInSiwc(mock, { fields: { email: "free@example.com", plan: "free" } });
    const refused = await postSiwcResponses(mock, free.tokens.access_token, siwcBody());
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: "subscription_sharing_user_not_eligible" } });
    const { clientId, tokens } = await signInSiwc(mock);
    mock.siwc.disconnect(clientId);
    expect((await postSiwcResponses(mock, tokens.access_token, siwcBody())).status).toBe(401);
  });

  it("any other path or method under /v1 is 403 subscription_sharing_route_not_supported", async () => {
    const { tokens } = await signInSiwc(mock);
    const auth = { authorization: `Bearer ${tokens.access_token}` };
    for (const [method, path] of [
      ["POST", "/chat/completions"],
      ["POST", "/images/generations"],
      ["POST", "/realtime/calls"],
      ["GET", "/responses"],
      ["POST", "/models"],
    ]) {
      const reply = await fetch(`${mock.siwcApiBase}${path}`, { method, headers: auth });
      expect(reply.status, `${method} ${path}`).toBe(403);
      expect(await reply.json()).toMatchObject({ error: { code: "subscription_sharing_route_not_supported" } });
    }
  });
});
