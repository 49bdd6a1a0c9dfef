/**
 * Calling the model from server code: proxyFetch's CSRF rule (an explicit option to skip it), and
 * the AI SDK's one-shot calls (generateText, generateObject) through the proxy.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { generateObject, generateText } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createSessionProvider } from "@/lib/server/session-provider";
import { BASE, createEvidence, findLeakedTokens, responsesBody, signIn, startHarness, type Harness, type TestClient } from "./harness";

const evidence = createEvidence();
let h: Harness;
let client: TestClient;

beforeAll(async () => {
  h = await startHarness({ evidence, mock: { streamChunkDelayMs: 0 } });
  client = h.client();
  await signIn(h, client);
});
afterAll(() => h.close());

/** A request as server code builds it: the browser's cookie, a Responses body, any URL. */
function serverRequest(headers: Record<string, string> = {}, body: unknown = responsesBody("from server code", { stream: true })) {
  return new Request("http://internal.invalid/any/path", {
    method: "POST",
    headers: { cookie: `lwc_session=${client.cookie}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

async function recorded(response: Response): Promise<string> {
  const text = await response.text();
  evidence.bodies.push(text);
  return text;
}

describe("proxyFetch and CSRF", () => {
  it("refuses a request without Origin unless the caller skips the check explicitly", async () => {
    const before = h.mock.requests({ path: "/backend-api/codex/responses" }).length;
    const refused = await h.provider.proxyFetch(serverRequest());
    expect(refused.status).toBe(403);
    expect(JSON.parse(await recorded(refused))).toMatchObject({ error: "origin_required" });
    expect(h.mock.requests({ path: "/backend-api/codex/responses" })).toHaveLength(before);

    const skipped = await h.provider.proxyFetch(serverRequest(), { csrf: "skip-server-call" });
    expect(skipped.status).toBe(200);
    expect(await recorded(skipped)).toContain("from server code");
  });

  it("checks the Origin a request carries: its own origin passes, a foreign one is refused", async () => {
    const own = await h.provider.proxyFetch(serverRequest({ origin: "http://app.example", host: "app.example" }));
    expect(own.status).toBe(200);
    expect(await recorded(own)).toContain("from server code");

    const foreign = await h.provider.proxyFetch(serverRequest({ origin: "https://evil.example", host: "app.example" }));
    expect(foreign.status).toBe(403);
    expect(JSON.parse(await recorded(foreign))).toEqual({ error: "origin_not_allowed", origin: "https://evil.example" });
  });

  it("still reads the session from the cookie when the check is skipped", async () => {
    const anonymous = await h.provider.proxyFetch(
      new Request("http://internal.invalid/", { method: "POST", body: JSON.stringify(responsesBody()) }),
      { csrf: "skip-server-call" },
    );
    expect(anonymous.status).toBe(401);
    await recorded(anonymous);
  });
});

type CallFailure = { statusCode?: number; responseBody?: string };

/** The error a call rejected with (the test fails if it resolved). */
async function failureOf(call: Promise<unknown>): Promise<CallFailure> {
  return call.then(
    () => expect.fail("the call should have failed"),
    (error: unknown) => error as CallFailure,
  );
}

/** The AI SDK's OpenAI provider pointed at the served handler over HTTP, sending the client's cookie as a browser would. */
function overHttp() {
  return createOpenAI({
    baseURL: `${h.served.url}${BASE}`,
    apiKey: "unused",
    fetch: (url, init) => {
      const headers = new Headers(init?.headers);
      headers.delete("authorization");
      headers.set("cookie", `lwc_session=${client.cookie}`);
      headers.set("origin", h.served.url);
      return fetch(url, { ...init, headers });
    },
  });
}

const upstreamBodies = () => h.mock.requests({ path: "/backend-api/codex/responses" }).map((request) => request.body as Record<string, unknown>);

describe("one-shot AI SDK calls over HTTP (the backend only streams; the proxy assembles one JSON reply)", () => {
  it("generateText gets the whole text, the finish reason and the usage", async () => {
    const result = await generateText({ model: overHttp().responses("gpt-5.5"), prompt: "one shot please", maxRetries: 0 });
    expect(result.text).toBe('You said: "one shot please".');
    expect(result.finishReason).toBe("stop");
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.response.id).toMatch(/^resp_/);
    // Upstream it was still a stream: the backend takes nothing else.
    expect(upstreamBodies().at(-1)).toMatchObject({ stream: true, store: false });
  });

  it("generateObject gets an object that matches the schema", async () => {
    const schema = z.object({ summary: z.string(), words: z.number(), tags: z.array(z.string()) });
    const result = await generateObject({ model: overHttp().responses("gpt-5.5"), schema, prompt: "object please", maxRetries: 0 });
    expect(schema.parse(result.object)).toEqual(result.object);
    expect(result.object.summary).toContain("object please");
    expect(upstreamBodies().at(-1)).toMatchObject({ text: { format: { type: "json_schema" } } });
  });

  it("a proxy refusal reaches generateText as the API call error with the proxy's status and body", async () => {
    const failure = await failureOf(generateText({ model: overHttp().responses("gpt-not-listed"), prompt: "hi", maxRetries: 0 }));
    expect(failure).toMatchObject({ statusCode: 403 });
    expect(JSON.parse(failure.responseBody ?? "{}")).toEqual({ error: "model_not_allowed", model: "gpt-not-listed" });
  });
});

describe("stream: false over HTTP", () => {
  it("answers one JSON response object with the usage headers and no-store", async () => {
    const reply = await client.post("/responses", responsesBody("json please"));
    const parsed = await client.post("/responses", responsesBody("json please", { stream: false }));
    expect(reply.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(parsed.status).toBe(200);
    expect(parsed.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(parsed.headers.get("cache-control")).toBe("no-store");
    expect(parsed.headers.get("x-codex-primary-used-percent")).toMatch(/^\d+/);
    const body = parsed.json<{ object: string; status: string; output: { type: string }[] }>();
    expect(body).toMatchObject({ object: "response", status: "completed" });
    expect(body.output.map((item) => item.type)).toEqual(["reasoning", "message"]);
  });

  it("answers 502 responses_request_failed when the backend's stream breaks off", async () => {
    const reply = await client.post("/responses", responsesBody("cut me [[mock:stream_cut]]", { stream: false }));
    expect(reply.status).toBe(502);
    expect(reply.json()).toEqual({
      error: "responses_request_failed",
      status: 502,
      detail: "The model's reply broke off before it finished. Try again.",
    });
  });

  it("passes a failed response on as the backend ended it (status failed, its error)", async () => {
    const reply = await client.post(
      "/responses",
      responsesBody("draw [[mock:image_refusal]]", { stream: false, tools: [{ type: "image_generation" }], tool_choice: { type: "image_generation" } }),
    );
    expect(reply.status).toBe(200);
    expect(reply.json()).toMatchObject({ status: "failed", error: { code: "moderation_blocked" } });
  });

  it("refuses a stream field that is not a boolean", async () => {
    const reply = await client.post("/responses", responsesBody("hi", { stream: "yes" }));
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ error: "invalid_responses_request", message: "`stream` must be a boolean" });
  });
});

describe("createSessionProvider (lib/server/session-provider.ts)", () => {
  it("calls the model in-process as the incoming request's user, with generateText", async () => {
    const incoming = new Request("http://app.example/api/summary", {
      method: "POST",
      headers: { cookie: `lwc_session=${client.cookie}`, origin: "http://app.example", host: "app.example" },
    });
    const result = await generateText({ model: createSessionProvider(h.provider, incoming).responses("gpt-5.5"), prompt: "in process", maxRetries: 0 });
    expect(result.text).toBe('You said: "in process".');
  });

  it("refuses an incoming request without Origin unless told to skip the check", async () => {
    const incoming = new Request("http://app.example/page", { headers: { cookie: `lwc_session=${client.cookie}` } });
    const refused = await failureOf(generateText({ model: createSessionProvider(h.provider, incoming).responses("gpt-5.5"), prompt: "hi", maxRetries: 0 }));
    expect(refused).toMatchObject({ statusCode: 403 });
    expect(JSON.parse(refused.responseBody ?? "{}")).toMatchObject({ error: "origin_required" });

    const skipped = createSessionProvider(h.provider, incoming, { csrf: "skip-server-call" });
    expect((await generateText({ model: skipped.responses("gpt-5.5"), prompt: "skipped", maxRetries: 0 })).text).toBe('You said: "skipped".');
  });
});

it("never leaks a token into a response body or a log line", () => {
  expect(evidence.issuedTokens.size).toBeGreaterThan(0);
  expect(findLeakedTokens(evidence)).toEqual([]);
});
