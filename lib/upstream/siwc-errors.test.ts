import { describe, expect, it } from "vitest";
import { classifySiwcHttpFailure, classifySiwcStreamFailure, MANAGE_USAGE_URL } from "./siwc-errors";

const none = new Headers();
const http = (status: number, body: unknown, context: Parameters<typeof classifySiwcHttpFailure>[3] = { route: "responses" }) =>
  classifySiwcHttpFailure(status, typeof body === "string" ? body : JSON.stringify(body), none, context);

describe("classifySiwcHttpFailure", () => {
  it.each([
    [429, "subscription_sharing_usage_limit_exceeded", "plan_usage_limit_reached"],
    [403, "subscription_sharing_user_not_eligible", "plan_not_eligible"],
    [503, "subscription_sharing_usage_unavailable", "plan_usage_unavailable"],
    [503, "subscription_sharing_user_unavailable", "plan_usage_unavailable"],
    [403, "subscription_sharing_route_not_supported", "plan_route_not_supported"],
    [401, "subscription_sharing_invalid_user", "plan_authorization_invalid"],
    [403, "chatpass_v2_scope_not_authorized", "plan_authorization_invalid"],
    [403, "chatpass_v2_invalid_authorization_context", "plan_authorization_invalid"],
    [403, "chatpass_v2_blocked_region", "plan_access_restricted"],
    [403, "chatpass_v2_suspended", "plan_access_restricted"],
    [429, "subscription_sharing_v2_usage_limit_exceeded", "plan_usage_limit_reached"],
    [403, "subscription_sharing_v2_user_not_eligible", "plan_not_eligible"],
    [403, "subscription_sharing_v2_client_not_enabled", "plan_authorization_invalid"],
  ])("%i %s → %s, keeping the status and the backend's code", (status, upstream, code) => {
    const failure = http(status, { error: { code: upstream, message: "no" } });
    expect(failure).toMatchObject({ status, code, upstreamCode: upstream });
    expect(failure.message).not.toBe("");
  });

  it("reads the code in every body shape the backend is known to use", () => {
    expect(http(403, { detail: { code: "chatpass_v2_suspended" } }).code).toBe("plan_access_restricted");
    expect(http(403, { error: "subscription_sharing_route_not_supported" }).code).toBe("plan_route_not_supported");
    expect(http(404, { detail: "Route refused: subscription_sharing_route_not_supported." }).code).toBe("plan_route_not_supported");
    expect(http(429, { code: "subscription_sharing_usage_limit_exceeded" }).code).toBe("plan_usage_limit_reached");
    expect(http(429, { error: { error: { detail: { code: "subscription_sharing_usage_limit_exceeded" } } } }).code).toBe(
      "plan_usage_limit_reached",
    );
  });

  it("a usage limit points to Manage usage and carries no reset time, not even the backend's words", () => {
    const failure = http(429, { error: { code: "subscription_sharing_usage_limit_exceeded", message: "Try again in 3 hours", resets_in_seconds: 100 } });
    expect(failure.message).toContain(MANAGE_USAGE_URL);
    expect(JSON.stringify(failure)).not.toMatch(/3 hours|resets|100/);
  });

  it.each([
    [401, "plan_authorization_invalid"],
    [403, "plan_access_restricted"],
    [503, "plan_usage_unavailable"],
  ])("a bare {detail} %i → %s with the detail as a snippet", (status, code) => {
    const failure = http(status, { detail: "Not allowed from here" });
    expect(failure).toMatchObject({ status, code, detail: "Not allowed from here" });
    expect(failure.upstreamCode).toBeUndefined();
  });

  it("unsupported_capability → unsupported_field naming the param", () => {
    const failure = http(400, { error: { code: "subscription_sharing_unsupported_capability", param: "tools[0]", message: "no" } });
    expect(failure).toMatchObject({ status: 400, code: "unsupported_field", param: "tools[0]" });
    expect(failure.message).toContain("tools[0]");
  });

  it("model_not_found → model_not_supported naming the model", () => {
    const failure = http(404, { error: { code: "model_not_found", message: "gone" } }, { route: "responses", model: "gpt-x" });
    expect(failure).toMatchObject({ status: 404, code: "model_not_supported", model: "gpt-x" });
    expect(failure.message).toContain("gpt-x");
  });

  it("anything else keeps the route's generic code and the status", () => {
    expect(http(500, "oops")).toEqual({ status: 500, code: "responses_request_failed", message: "The model service answered 500." });
    expect(http(429, { error: { code: "rate_limit_exceeded" } })).toMatchObject({ status: 429, code: "responses_request_failed" });
    expect(http(422, { detail: [{ type: "list_type" }] }, { route: "models" })).toMatchObject({ status: 422, code: "models_request_failed" });
  });

  it("the detail snippet has tokens removed and the request's own text replaced", () => {
    const prompt = "please summarise my secret diary entry";
    const failure = http(403, { detail: `Refused "${prompt}" for Bearer abcdefghijklmnopqrstuvwxyz0123456789` }, { route: "responses", inputs: [prompt] });
    expect(failure.detail).toContain("[input]");
    expect(failure.detail).toContain("[redacted]");
    expect(failure.detail).not.toContain("diary");
  });

  it("keeps the backend's request id", () => {
    const failure = classifySiwcHttpFailure(503, "{}", new Headers({ "x-request-id": "req_123" }), { route: "responses" });
    expect(failure.requestId).toBe("req_123");
    expect(classifySiwcHttpFailure(503, "{}", new Headers({ "x-request-id": "bad id <script>" }), { route: "responses" }).requestId).toBeUndefined();
  });
});

describe("classifySiwcStreamFailure", () => {
  it("response.failed with a plan code gets the code's usual status", () => {
    const failure = classifySiwcStreamFailure(
      { type: "response.failed", response: { error: { code: "subscription_sharing_usage_limit_exceeded", message: "limit" } } },
      { route: "responses" },
    );
    expect(failure).toMatchObject({ status: 429, code: "plan_usage_limit_reached" });
  });

  it("a top-level error event", () => {
    expect(classifySiwcStreamFailure({ type: "error", code: "subscription_sharing_usage_unavailable", message: "x" }, { route: "responses" })).toMatchObject({
      status: 503,
      code: "plan_usage_unavailable",
    });
    expect(classifySiwcStreamFailure({ type: "error", code: "model_not_found", message: "x" }, { route: "responses", model: "m1" })).toMatchObject({
      code: "model_not_supported",
      model: "m1",
    });
  });

  it("an unknown failure is a 502 responses_request_failed naming the backend's code", () => {
    const failure = classifySiwcStreamFailure({ type: "response.failed", response: { error: { code: "server_error", message: "x" } } }, { route: "responses" });
    expect(failure).toMatchObject({ status: 502, code: "responses_request_failed", upstreamCode: "server_error" });
    expect(failure.message).toContain("server_error");
  });
});
