import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MODELS_PATH, RESPONSES_PATH, startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { describeUpstreamFailure, pickUsageHeaders } from "./backend";
import { isProviderAuthError } from "./errors";
import { readAccountInfo } from "./jwt";
import { fetchModels } from "./models";
import { isServiceTierRejection, normalizeResponsesBody, postResponses, withoutServiceTier } from "./responses";
import { closedPortUrl, configForMock, rejection, signInThroughMock, sseOutputText } from "@/test-support/upstream-helpers";
import type { BackendAuth, UpstreamConfig } from "./types";

let mock: MockUpstream;
let config: UpstreamConfig;
let plus: BackendAuth;
let free: BackendAuth;

async function authFor(account: { accountId: string; plan: string }): Promise<BackendAuth> {
  const tokens = await signInThroughMock(mock, config, account);
  return { accessToken: tokens.accessToken, accountId: readAccountInfo(tokens).accountId };
}

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  config = configForMock(mock);
  plus = await authFor({ accountId: "acct_plus", plan: "plus" });
  free = await authFor({ accountId: "acct_free", plan: "free" });
});

afterAll(async () => {
  await mock.close();
});

function userMessage(text: string, id?: string) {
  return { ...(id ? { id } : {}), type: "message", role: "user", content: [{ type: "input_text", text }] };
}

describe("fetchModels against the mock upstream", () => {
  it("returns only listed models, sorted by priority, sending client_version and the backend headers", async () => {
    const models = await fetchModels(config, plus);
    expect(models.map((model) => model.slug)).toEqual(["gpt-6.1-sol", "gpt-6-astra", "gpt-6-sol", "gpt-6-luna", "gpt-7-sol", "gpt-5.5", "gpt-5.4-mini"]);
    expect(models.every((model) => model.visibility === "list")).toBe(true);
    expect(models[0]?.service_tiers?.map((tier) => tier.id)).toEqual(["priority"]);

    const call = mock.requests({ path: MODELS_PATH }).at(-1);
    expect(call?.query.client_version).toBe(config.clientVersion);
    expect(call?.headers.version).toBe(config.clientVersion);
    expect(call?.headers.authorization).toBe(`Bearer ${plus.accessToken}`);
    expect(call?.headers["chatgpt-account-id"]).toBe("acct_plus");
    expect(call?.headers.originator).toBe("codex_cli_rs");
    expect(call?.headers["user-agent"]).toBe(config.userAgent);
  });

  it("reaches a gated model only with a version at or above its floor, sent as the version header", async () => {
    const body = normalizeResponsesBody({ model: "gpt-7-sol", input: [userMessage("hi")] });
    const refused = await postResponses(config, plus, body);
    expect(refused.status).toBe(400);
    expect(describeUpstreamFailure(400, await refused.text())).toMatch(/^The 'gpt-7-sol' model requires a newer version of Codex/);
    const floor = (await fetchModels(config, plus)).find((model) => model.slug === "gpt-7-sol")?.minimal_client_version;
    expect(typeof floor).toBe("string");
    const served = await postResponses(configForMock(mock, { clientVersion: floor as string }), plus, body);
    expect(served.status).toBe(200);
    await served.text();
  });

  it("lists what the plan allows", async () => {
    expect((await fetchModels(config, free)).map((model) => model.slug)).toEqual(["gpt-5.4-mini"]);
  });

  it("gets no models with a stale client version", async () => {
    expect(await fetchModels(configForMock(mock, { clientVersion: "0.100.0" }), plus)).toEqual([]);
  });

  it("maps an upstream 5xx to models_request_failed with status and body", async () => {
    mock.addFault({ fault: "server_error", accountId: "acct_plus" });
    const error = await rejection(fetchModels(config, plus));
    expect(error.code).toBe("models_request_failed");
    expect(error.status).toBe(500);
    expect(error.body).toContain("internal_error");
    expect(error.message).toMatch(/^Upstream answered 500: /);
  });

  it("maps a 401 to models_request_failed with status 401", async () => {
    mock.addFault({ fault: "backend_unauthorized", accountId: "acct_plus" });
    const error = await rejection(fetchModels(config, plus));
    expect(error.code).toBe("models_request_failed");
    expect(error.status).toBe(401);
  });

  it("explains the Cloudflare challenge", async () => {
    mock.addFault({ fault: "cloudflare_challenge", accountId: "acct_plus" });
    const error = await rejection(fetchModels(config, plus));
    expect(error.code).toBe("models_request_failed");
    expect(error.status).toBe(403);
    expect(error.message).toMatch(/edge \(Cloudflare\) blocked the request from this server's IP/);
  });

  it("throws network_error when nothing listens", async () => {
    const closed = configForMock(mock, { codexBaseUrl: `${await closedPortUrl()}/backend-api/codex` });
    expect((await rejection(fetchModels(closed, plus))).code).toBe("network_error");
  });
});

describe("postResponses against the mock upstream", () => {
  it("sends the normalised body with the backend headers and streams the reply", async () => {
    const sdkBody = {
      model: "gpt-5.5",
      store: true,
      max_output_tokens: 256,
      temperature: 0.3,
      previous_response_id: "resp_old",
      include: ["message.output_text.logprobs"],
      input: [
        { role: "system", content: "Answer briefly." },
        userMessage("first question", "msg_1"),
        { type: "item_reference", id: "rs_1" },
        userMessage("hello there"),
      ],
    };
    const body = normalizeResponsesBody(sdkBody, { serviceTier: "fast", reasoningEffort: "high" });
    const response = await postResponses(config, plus, body);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(sseOutputText(await response.text())).toBe('You said: "hello there". Earlier you said: "first question".');

    const call = mock.requests({ path: RESPONSES_PATH }).at(-1);
    expect(call?.body).toEqual(body);
    expect(call?.body).toMatchObject({
      store: false,
      stream: true,
      service_tier: "priority",
      reasoning: { effort: "high", summary: "auto" },
      include: ["message.output_text.logprobs", "reasoning.encrypted_content"],
    });
    expect(call?.headers.accept).toBe("text/event-stream");
    expect(call?.headers["content-type"]).toMatch(/^application\/json/);
    expect(call?.headers.authorization).toBe(`Bearer ${plus.accessToken}`);
    expect(call?.headers["chatgpt-account-id"]).toBe("acct_plus");
    expect(call?.headers.originator).toBe("codex_cli_rs");
    expect(call?.headers["user-agent"]).toBe(config.userAgent);
    // The backend gates models on this header at inference (docs/upstream.md).
    expect(call?.headers.version).toBe(config.clientVersion);

    const usage = pickUsageHeaders(response.headers);
    expect(usage["x-codex-primary-used-percent"]).toMatch(/^\d+/);
    expect(Object.keys(usage).every((name) => name.startsWith("x-codex-"))).toBe(true);
    expect(usage).not.toHaveProperty("content-type");
  });

  it("shows why normalising matters: the raw SDK body is refused", async () => {
    const response = await postResponses(config, plus, { model: "gpt-5.5", max_output_tokens: 5, input: [userMessage("hi")] });
    expect(response.status).toBe(400);
    expect(describeUpstreamFailure(response.status, await response.text())).toBe("Unsupported parameter: max_output_tokens");
  });

  it("detects a tier the model does not offer and succeeds on the retry without it", async () => {
    const body = normalizeResponsesBody({ model: "gpt-5.4-mini", input: [userMessage("tier test")] }, { serviceTier: "fast" });
    const rejected = await postResponses(config, plus, body);
    const text = await rejected.text();
    expect(rejected.status).toBe(400);
    expect(isServiceTierRejection(rejected.status, text)).toBe(true);

    const retried = await postResponses(config, plus, withoutServiceTier(body));
    expect(retried.status).toBe(200);
    expect(sseOutputText(await retried.text())).toBe('You said: "tier test".');
    expect(mock.requests({ path: RESPONSES_PATH }).at(-1)?.body).not.toHaveProperty("service_tier");
  });

  it("detects the fast_tier_rejected fault as a tier rejection", async () => {
    mock.addFault({ fault: "fast_tier_rejected", accountId: "acct_plus" });
    const body = normalizeResponsesBody({ model: "gpt-5.5", input: [userMessage("x")] }, { serviceTier: "priority" });
    const response = await postResponses(config, plus, body);
    expect(isServiceTierRejection(response.status, await response.text())).toBe(true);
  });

  it("returns a usage-limit reply for the caller to describe", async () => {
    mock.addFault({ fault: "usage_limit", accountId: "acct_plus" });
    const response = await postResponses(config, plus, normalizeResponsesBody({ model: "gpt-5.5", input: "x" }));
    expect(response.status).toBe(429);
    expect(describeUpstreamFailure(response.status, await response.text())).toMatch(
      /^The ChatGPT usage limit for the plus plan has been reached\. It resets in \d+ seconds \(about \d+ minutes\)\.$/,
    );
    expect(pickUsageHeaders(response.headers)["x-codex-primary-used-percent"]).toBe("100");
  });

  it("returns the Cloudflare challenge for the caller to describe", async () => {
    mock.addFault({ fault: "cloudflare_challenge", accountId: "acct_plus" });
    const response = await postResponses(config, plus, normalizeResponsesBody({ model: "gpt-5.5", input: "x" }));
    expect(response.status).toBe(403);
    expect(describeUpstreamFailure(response.status, await response.text())).toMatch(/blocked the request from this server's IP/);
  });

  it("returns an unsupported model's detail for the caller to describe", async () => {
    const response = await postResponses(config, free, normalizeResponsesBody({ model: "gpt-5.5", input: "x" }));
    expect(response.status).toBe(400);
    expect(describeUpstreamFailure(response.status, await response.text())).toBe(
      "The 'gpt-5.5' model is not supported when using Codex with a ChatGPT account.",
    );
  });

  it("rethrows the caller's abort as is and the upstream sees the request go away", async () => {
    mock.addFault({ fault: "slow_first_byte", accountId: "acct_plus", delayMs: 20_000 });
    const controller = new AbortController();
    const pending = postResponses(config, plus, normalizeResponsesBody({ model: "gpt-5.5", input: "abort me" }), {
      signal: controller.signal,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const seen = await mock.waitForRequest((r) => r.path === RESPONSES_PATH && JSON.stringify(r.body).includes("abort me"));
    controller.abort();
    const error = await pending;
    expect(isProviderAuthError(error)).toBe(false);
    expect((error as Error).name).toBe("AbortError");
    const aborted = await mock.waitForAbort();
    expect(aborted.id).toBe(seen.id);
  });

  it("throws network_error when nothing listens", async () => {
    const closed = configForMock(mock, { codexBaseUrl: `${await closedPortUrl()}/backend-api/codex` });
    const error = await rejection(postResponses(closed, plus, normalizeResponsesBody({ model: "gpt-5.5", input: "x" })));
    expect(error.code).toBe("network_error");
  });
});
