/**
 * The "responses lite" dialect as the mock models it: the catalog flags models as codex's does, the
 * recording says which dialect each request spoke, and two switches refuse one dialect or the other.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RESPONSES_LITE_HEADER } from "./responses";
import { RESPONSES_PATH, startMockUpstream, type MockUpstream } from "./server";
import { signInThroughMock, type MockTokenSet } from "./sign-in";
import { backendHeaders, getModels, parseSse, postResponses, validBody } from "./test-utils";

let mock: MockUpstream;
let tokens: MockTokenSet;
beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  tokens = await signInThroughMock(mock);
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

function userMessage(text: string) {
  return { type: "message", role: "user", content: [{ type: "input_text", text }] };
}

function developerMessage(text: string) {
  return { type: "message", role: "developer", content: [{ type: "input_text", text }] };
}

/** A body in the lite shape, as codex sends it: no top-level instructions or tools. */
function liteBody(model: string, text: string, tools: unknown[] = []): Record<string, unknown> {
  const body = validBody({
    model,
    input: [
      ...(tools.length > 0 ? [{ type: "additional_tools", role: "developer", tools }] : []),
      developerMessage("Answer like a pirate."),
      userMessage(text),
    ],
    reasoning: { effort: "low", summary: "auto", context: "all_turns" },
    parallel_tool_calls: false,
  });
  delete body.instructions;
  return body;
}

function postLite(body: unknown) {
  return fetch(`${mock.codexBaseUrl}/responses`, {
    method: "POST",
    headers: { ...backendHeaders(tokens), [RESPONSES_LITE_HEADER]: "true" },
    body: JSON.stringify(body),
  });
}

async function replyText(reply: Response): Promise<string> {
  const done = parseSse(await reply.text()).find((event) => event.event === "response.output_text.done");
  return String(done?.data.text);
}

const lastRecorded = () => mock.requests({ path: RESPONSES_PATH }).at(-1)!;

describe("the catalog", () => {
  it("flags every current model use_responses_lite, as codex's own catalog does; gpt-5.5 and the mini are not", async () => {
    const { models } = (await (await getModels(mock, tokens)).json()) as { models: { slug: string; use_responses_lite: boolean }[] };
    const plain = models.filter((model) => model.use_responses_lite === false).map((model) => model.slug);
    expect(plain.sort()).toEqual(["gpt-5.4-mini", "gpt-5.5"]);
    expect(models.filter((model) => model.use_responses_lite === true).map((model) => model.slug)).toEqual(
      expect.arrayContaining(["gpt-6.1-sol", "gpt-6-astra", "gpt-6-sol", "gpt-6-luna", "codex-auto-review"]),
    );
  });
});

describe("the dialect of each request", () => {
  it("records plain for a request without the header, lite for one with it", async () => {
    await (await postResponses(mock, tokens, validBody())).text();
    expect(lastRecorded().dialect).toBe("plain");
    await (await postLite(liteBody("gpt-6.1-sol", "hello"))).text();
    expect(lastRecorded().dialect).toBe("lite");
  });

  it("a lite request: the instructions are its first developer message, no top-level instructions needed", async () => {
    const reply = await postLite(liteBody("gpt-6.1-sol", "hello there"));
    expect(reply.status).toBe(200);
    expect(await replyText(reply)).toContain('Instructions I got: "Answer like a pirate."');
  });

  it("a lite request's tools are read from its additional_tools item (web search runs)", async () => {
    const reply = await postLite(liteBody("gpt-6.1-sol", "weather in Paris", [{ type: "web_search", external_web_access: true }]));
    expect(reply.status).toBe(200);
    expect(parseSse(await reply.text()).map((event) => event.event)).toContain("response.web_search_call.completed");
  });

  it("the same body without the header is a plain request and needs its instructions", async () => {
    const reply = await postResponses(mock, tokens, liteBody("gpt-6.1-sol", "hello"));
    expect(reply.status).toBe(400);
    expect(await reply.json()).toEqual({ detail: "Instructions are required" });
  });
});

describe("switches", () => {
  it("responses_lite_refused: a lite request is answered as a backend without the dialect would (Instructions are required); a plain one passes", async () => {
    mock.addFault({ fault: "responses_lite_refused", times: 0 });
    const refused = await postLite(liteBody("gpt-6.1-sol", "hello"));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ detail: "Instructions are required" });
    const plain = await postResponses(mock, tokens, validBody({ model: "gpt-6.1-sol", reasoning: { effort: "low", summary: "auto" } }));
    expect(plain.status).toBe(200);
    await plain.text();
  });

  it("responses_lite_required: the plain shape is refused for a flagged model, with a plausible message; lite passes, and so does plain for gpt-5.5", async () => {
    mock.addFault({ fault: "responses_lite_required", times: 0 });
    const refused = await postResponses(mock, tokens, validBody({ model: "gpt-6.1-sol", reasoning: { effort: "low", summary: "auto" } }));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      detail: "The 'gpt-6.1-sol' model requires the Responses Lite request format. Please upgrade to the latest app or CLI and try again.",
    });
    const lite = await postLite(liteBody("gpt-6.1-sol", "hello"));
    expect(lite.status).toBe(200);
    await lite.text();
    const unflagged = await postResponses(mock, tokens, validBody({ model: "gpt-5.5" }));
    expect(unflagged.status).toBe(200);
    await unflagged.text();
  });

  it("a switch is used up only by a request it applies to (times: 1)", async () => {
    mock.addFault({ fault: "responses_lite_required" });
    await (await postResponses(mock, tokens, validBody({ model: "gpt-5.5" }))).text();
    const refused = await postResponses(mock, tokens, validBody({ model: "gpt-6-sol", reasoning: { effort: "low", summary: "auto" } }));
    expect(refused.status).toBe(400);
    await refused.text();
    const again = await postResponses(mock, tokens, validBody({ model: "gpt-6-sol", reasoning: { effort: "low", summary: "auto" } }));
    expect(again.status).toBe(200);
    await again.text();
  });

  it("a marker in the newest user message arms either switch for that request only", async () => {
    const refused = await postLite(liteBody("gpt-6.1-sol", "hello [[mock:responses_lite_refused]]"));
    expect(refused.status).toBe(400);
    await refused.text();
    const next = await postLite(liteBody("gpt-6.1-sol", "hello"));
    expect(next.status).toBe(200);
    await next.text();
  });
});
