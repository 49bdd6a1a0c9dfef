/** The web_search tool through the proxy (LWC_WEB_SEARCH / responsesProxy.webSearch), against the mock over real HTTP. */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import type { ResponsesProxyOptions } from "@/lib/server/options";
import { createEvidence, findLeakedTokens, responsesBody, signIn, startHarness, type Harness, type TestClient } from "./harness";

// The tool as the pinned Codex sends it for a live search, and as the app's switch sends it.
const WEB_SEARCH_TOOL = { type: "web_search", external_web_access: true };
const evidence = createEvidence();
let mock: MockUpstream;
const harnesses: Harness[] = [];

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
});
afterAll(async () => {
  await Promise.all(harnesses.map((harness) => harness.close()));
  await mock.close();
  expect(findLeakedTokens(evidence)).toEqual([]);
});

async function signedInClient(responsesProxy: ResponsesProxyOptions = {}): Promise<TestClient> {
  const harness = await startHarness({ evidence, sharedMock: mock, handler: { responsesProxy } });
  harnesses.push(harness);
  const client = harness.client();
  await signIn(harness, client);
  return client;
}

function upstreamCalls() {
  return mock.requests({ path: "/backend-api/codex/responses" });
}

/** What the app's environment makes of LWC_WEB_SEARCH (the module also builds the app's own handler when it loads). */
async function proxyOptionsFromEnv(env: Record<string, string>): Promise<ResponsesProxyOptions> {
  const secret = "web-search-test-secret-0123456789abcdef";
  vi.stubEnv("LWC_SECRET", secret);
  const { optionsFromEnv } = await import("@/lib/provider-app");
  vi.unstubAllEnvs();
  return optionsFromEnv({ LWC_SECRET: secret, ...env }).responsesProxy ?? {};
}

describe("web search on (the default)", () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await signedInClient();
  });

  it("passes the web_search tool to the backend exactly as sent, and streams the search and the cited answer back", async () => {
    const before = upstreamCalls().length;
    const reply = await client.post("/responses", responsesBody("weather in Lisbon", { tools: [WEB_SEARCH_TOOL], tool_choice: "auto" }));
    expect(reply.status).toBe(200);
    const sent = upstreamCalls().at(-1)!.body as { tools: unknown; tool_choice: unknown };
    expect(upstreamCalls().length).toBe(before + 1);
    expect(sent.tools).toEqual([WEB_SEARCH_TOOL]);
    expect(sent.tool_choice).toBe("auto");
    expect(reply.text).toContain("event: response.web_search_call.completed");
    expect(reply.text).toContain('"type":"url_citation"');
  });
});

describe("web search off", () => {
  it("responsesProxy.webSearch false: a body with the web_search tool is refused with 403 web_search_disabled, before any upstream call", async () => {
    const client = await signedInClient({ webSearch: false });
    const before = upstreamCalls().length;
    for (const tool of [WEB_SEARCH_TOOL, { type: "web_search_preview" }]) {
      const reply = await client.post("/responses", responsesBody("weather in Lisbon", { tools: [tool] }));
      expect(reply.status).toBe(403);
      expect(reply.json()).toEqual({
        error: "web_search_disabled",
        message: "Web search is turned off on this server (LWC_WEB_SEARCH=off).",
      });
    }
    expect(upstreamCalls().length).toBe(before);
    // Everything else still works, other tools included.
    const plain = await client.post("/responses", responsesBody("hello", { tools: [{ type: "image_generation", output_format: "png" }] }));
    expect(plain.status).toBe(200);
    expect(upstreamCalls().length).toBe(before + 1);
  });

  it("LWC_WEB_SEARCH=off through optionsFromEnv refuses the tool over HTTP; unset or on lets it through", async () => {
    const off = await signedInClient(await proxyOptionsFromEnv({ LWC_WEB_SEARCH: "off" }));
    const refused = await off.post("/responses", responsesBody("weather", { tools: [WEB_SEARCH_TOOL] }));
    expect(refused.status).toBe(403);
    expect(refused.json<{ error: string }>().error).toBe("web_search_disabled");

    for (const env of [{}, { LWC_WEB_SEARCH: "on" }, { LWC_WEB_SEARCH: " ON " }] as Record<string, string>[]) {
      const on = await signedInClient(await proxyOptionsFromEnv(env));
      const reply = await on.post("/responses", responsesBody("weather", { tools: [WEB_SEARCH_TOOL] }));
      expect(reply.status).toBe(200);
    }
  });

  it("refuses an LWC_WEB_SEARCH that is neither on nor off, naming the variable", async () => {
    await expect(proxyOptionsFromEnv({ LWC_WEB_SEARCH: "maybe" })).rejects.toThrow(/LWC_WEB_SEARCH/);
  });
});
