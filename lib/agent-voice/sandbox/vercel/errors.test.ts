import { APIError } from "@vercel/sandbox";
import { describe, expect, it } from "vitest";
import { sandboxApiFailure, VercelSandboxError } from "./errors";

const apiError = (status: number, code: string) =>
  new APIError(new Response("", { status }), { message: `Status code ${status} is not ok: token secret-token at https://vercel.com/api/v3/sandboxes`, json: { error: { code, message: "m" } } });

describe("sandboxApiFailure", () => {
  it("maps the API's answers to fixed sentences; the detail has the status and code, never the SDK's message", () => {
    const cases = [
      [429, "too_many_requests", "refused"],
      [401, "unauthorized", "credentials"],
      [403, "forbidden", "credentials"],
      [410, "snapshot_not_found", "snapshot_missing"],
      [500, "internal_error", "unavailable"],
    ] as const;
    for (const [status, code, failure] of cases) {
      const mapped = sandboxApiFailure(apiError(status, code), "create");
      expect(mapped).toMatchObject({ failure, detail: `create: the Sandbox API answered ${status} ${code}` });
      expect(`${mapped.message} ${mapped.detail}`).not.toMatch(/secret-token|vercel\.com/);
    }
  });

  it("a 429 carries the API's Retry-After in whole seconds (at most an hour); none, zero or a date gives none", () => {
    const refused = (retryAfter?: string) =>
      sandboxApiFailure(new APIError(new Response("", { status: 429, headers: retryAfter === undefined ? {} : { "retry-after": retryAfter } }), { json: { error: { code: "too_many_requests" } } }), "create");
    expect(refused("60")).toMatchObject({ failure: "refused", retryAfterSeconds: 60 });
    expect(refused("86400").retryAfterSeconds).toBe(3600);
    for (const none of [undefined, "0", "-5", "1.5", "Wed, 21 Oct 2026 07:28:00 GMT"]) expect(refused(none).retryAfterSeconds, none).toBeUndefined();
    expect(sandboxApiFailure(apiError(500, "internal_error"), "create").retryAfterSeconds).toBeUndefined();
  });

  it("keeps a VercelSandboxError; anything else is unavailable, named by its kind only", () => {
    const own = new VercelSandboxError("ended", "the sandbox is stopped");
    expect(sandboxApiFailure(own, "get")).toBe(own);
    expect(sandboxApiFailure(new TypeError("fetch failed: connect ECONNREFUSED 10.0.0.1:443"), "get")).toMatchObject({
      failure: "unavailable",
      message: "Vercel Sandbox could not start a sandbox. Try again shortly.",
      detail: "get: TypeError",
    });
  });
});
