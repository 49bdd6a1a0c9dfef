import { describe, expect, it } from "vitest";
import { readJsonBody, type JsonBodyRules } from "./json-body";

const rules: JsonBodyRules = { maxRequestBytes: 100, tooLarge: "realtime_request_too_large", invalid: "invalid_realtime_request", shape: "{sdp, session}" };

function post(body: BodyInit | ReadableStream<Uint8Array>, init: RequestInit = {}): Request {
  return new Request("http://h/", { method: "POST", body, duplex: "half", ...init } as RequestInit);
}

async function refusal(request: Request, with_: JsonBodyRules = rules): Promise<{ status: number; body: unknown }> {
  const result = await readJsonBody(request, with_);
  if (result.ok) throw new Error("expected a refusal");
  return { status: result.response.status, body: result.response.status === 499 ? null : await result.response.json() };
}

describe("readJsonBody, the one JSON body reader of the routes", () => {
  it("returns the JSON object", async () => {
    expect(await readJsonBody(post('{"sdp":"v=0","session":{}}'), rules)).toEqual({ ok: true, body: { sdp: "v=0", session: {} } });
  });

  it("refuses a body over the limit with the route's 413 code and the limit", async () => {
    expect(await refusal(post("x".repeat(101)))).toEqual({ status: 413, body: { error: "realtime_request_too_large", maxRequestBytes: 100 } });
    const responses = { maxRequestBytes: 10, tooLarge: "responses_request_too_large", invalid: "invalid_responses_request" } as const;
    expect((await refusal(post("x".repeat(11)), responses)).body).toEqual({ error: "responses_request_too_large", maxRequestBytes: 10 });
  });

  it("refuses text that is not JSON, JSON that is not an object, and deep nesting, with the route's 400 code", async () => {
    expect(await refusal(post("not json"))).toEqual({ status: 400, body: { error: "invalid_realtime_request", message: "The request body must be JSON: {sdp, session}." } });
    expect((await refusal(post("[1,2]"))).body).toEqual({ error: "invalid_realtime_request", message: "The request body must be a JSON object: {sdp, session}." });
    expect((await refusal(post(`{"a":${"[".repeat(65)}${"]".repeat(65)}}`), { ...rules, maxRequestBytes: 1000 })).body).toEqual({
      error: "invalid_realtime_request",
      message: "The request body nests deeper than 64 levels.",
    });
  });

  it("a body that breaks off is 400, or 499 when the client went away", async () => {
    const breaking = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new Uint8Array(3).fill(123));
          controller.error(new TypeError("the client went away"));
        },
      });
    expect(await refusal(post(breaking()))).toEqual({ status: 400, body: { error: "invalid_realtime_request", message: "The request body could not be read to its end." } });
    const controller = new AbortController();
    controller.abort();
    expect((await refusal(post(breaking(), { signal: controller.signal }))).status).toBe(499);
  });
});
