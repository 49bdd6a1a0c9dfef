/**
 * A route of your own on the public entry (lib/server/index.ts): `providerHandler.route` runs it as
 * the handler runs its routes, and `readJsonRequest` reads its body as the handler reads its own.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError, createProviderHandler, readJsonRequest } from "@/lib/server";
import { StoreUnavailableError } from "@/lib/stores";
import { TEST_SECRET } from "./harness";

const logs: string[] = [];
const provider = createProviderHandler({
  secrets: [TEST_SECRET],
  allowedOrigins: ["https://partner.example"],
  logger: { info: () => undefined, warn: (line) => logs.push(line), error: (line) => logs.push(line) },
});

const schema = z.object({ topic: z.string().max(10).default("rain"), count: z.number().int().optional() });
const echo = provider.route(async (request) => Response.json(await readJsonRequest(request, schema, { maxRequestBytes: 100 })));

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  return new Request("http://127.0.0.1:3000/api/example/echo", { method: "POST", body, headers: { host: "127.0.0.1:3000", ...headers } });
}

async function read(reply: Response) {
  return { status: reply.status, body: await reply.text() };
}

describe("providerHandler.route", () => {
  it("answers what the route returns, no-store and with a request id", async () => {
    const reply = await echo(post('{"topic":"snow","count":3}'));
    expect(await read(reply)).toEqual({ status: 200, body: '{"topic":"snow","count":3}' });
    expect(reply.headers.get("cache-control")).toBe("no-store");
    expect(reply.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("applies the CSRF rule before the route runs: a foreign Origin is refused, an allowed one gets CORS", async () => {
    let ran = false;
    const route = provider.route(async () => {
      ran = true;
      return new Response(null, { status: 204 });
    });
    const foreign = await route(post("{}", { origin: "https://evil.example" }));
    expect(await read(foreign)).toEqual({ status: 403, body: '{"error":"origin_not_allowed","origin":"https://evil.example"}' });
    expect(ran).toBe(false);
    const partner = await route(post("{}", { origin: "https://partner.example" }));
    expect(partner.status).toBe(204);
    expect(partner.headers.get("access-control-allow-origin")).toBe("https://partner.example");
  });

  it("answers a thrown ApiError with its code's status, a store outage 503, and a bug 500 with one log line", async () => {
    const throwing = (error: Error) => provider.route(async () => Promise.reject(error));
    expect(await read(await throwing(new ApiError("rate_limited", { retryAfterSeconds: 3 }))(post("{}")))).toEqual({
      status: 429,
      body: '{"error":"rate_limited","retryAfterSeconds":3}',
    });
    expect(await read(await throwing(new ApiError("not_authenticated"))(post("{}")))).toEqual({
      status: 401,
      body: '{"error":"not_authenticated","message":"Sign in first: this request has no authenticated session."}',
    });
    expect(await read(await throwing(new StoreUnavailableError("down"))(post("{}")))).toEqual({
      status: 503,
      body: '{"error":"store_unavailable","message":"The session store is unavailable. Try again shortly."}',
    });
    const before = logs.length;
    expect(await read(await throwing(new Error("secret detail"))(post("{}")))).toEqual({ status: 500, body: '{"error":"internal_error"}' });
    expect(logs.slice(before)).toEqual([expect.stringMatching(/^\[login-with-chatgpt\] internal error on POST \/api\/example\/echo: Error request_id=/)]);
    expect(logs.join("\n")).not.toContain("secret detail");
  });
});

describe("readJsonRequest", () => {
  it("refuses a body over the limit (413 request_too_large) and one that is not what the schema says (400 invalid_request, naming the field)", async () => {
    expect(await read(await echo(post(JSON.stringify({ topic: "x".repeat(200) }))))).toEqual({
      status: 413,
      body: '{"error":"request_too_large","maxRequestBytes":100}',
    });
    expect(await read(await echo(post("{")))).toEqual({ status: 400, body: '{"error":"invalid_request","message":"The request body must be JSON."}' });
    expect(await read(await echo(post('{"topic":"a long topic"}')))).toEqual({
      status: 400,
      body: JSON.stringify({ error: "invalid_request", message: "`topic`: Too big: expected string to have <=10 characters" }),
    });
  });

  it("reads an empty body as no fields: the schema's defaults apply", async () => {
    expect(await read(await echo(post(null)))).toEqual({ status: 200, body: '{"topic":"rain"}' });
  });
});
