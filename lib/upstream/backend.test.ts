import { describe, expect, it } from "vitest";
import { backendHeaders, describeUpstreamFailure, isCloudflareChallenge, pickUsageHeaders } from "./backend";
import { resolveUpstreamConfig } from "./config";

describe("backendHeaders", () => {
  it("sets auth, account, originator, user agent and version, and keeps extras without letting them override those", () => {
    const config = resolveUpstreamConfig({ userAgent: "test-agent/1", clientVersion: "0.171.0" });
    const headers = backendHeaders(config, { accessToken: "at", accountId: "acct" }, {
      Accept: "text/event-stream",
      Authorization: "Bearer evil",
      Version: "0.1.0",
    });
    expect(headers).toEqual({
      authorization: "Bearer at",
      "chatgpt-account-id": "acct",
      originator: "codex_cli_rs",
      "user-agent": "test-agent/1",
      version: "0.171.0",
      accept: "text/event-stream",
    });
  });
});

describe("describeUpstreamFailure", () => {
  const challenge =
    '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><script src="/cdn-cgi/challenge-platform/x.js"></script></body></html>';

  it("recognises the Cloudflare challenge page", () => {
    expect(isCloudflareChallenge(403, challenge)).toBe(true);
    expect(isCloudflareChallenge(403, '<html><body><h1>Attention Required! | Cloudflare</h1></body></html>')).toBe(true);
    expect(isCloudflareChallenge(403, '{"detail":"Just a moment"}')).toBe(false);
    expect(isCloudflareChallenge(400, challenge)).toBe(false);
    const message = describeUpstreamFailure(403, challenge);
    expect(message).toMatch(/edge \(Cloudflare\) blocked the request from this server's IP/);
    expect(message).not.toContain("<");
  });

  it("explains a usage limit with its reset time", () => {
    const body = JSON.stringify({
      error: { type: "usage_limit_reached", plan_type: "plus", resets_at: 1, resets_in_seconds: 2520 },
    });
    expect(describeUpstreamFailure(429, body)).toBe(
      "The ChatGPT usage limit for the plus plan has been reached. It resets in 2520 seconds (about 42 minutes).",
    );
  });

  it("returns a detail string as is", () => {
    const detail = "The 'gpt-x' model is not supported when using Codex with a ChatGPT account.";
    expect(describeUpstreamFailure(400, JSON.stringify({ detail }))).toBe(detail);
  });

  it("adds an error message to the status, else the status alone", () => {
    expect(describeUpstreamFailure(500, JSON.stringify({ error: { message: "boom" } }))).toBe("Upstream answered 500: boom");
    expect(describeUpstreamFailure(502, "<html>bad gateway</html>")).toBe("Upstream answered 502");
    expect(describeUpstreamFailure(401, "")).toBe("Upstream answered 401");
  });
});

describe("pickUsageHeaders", () => {
  it("keeps only x-codex-* headers", () => {
    const picked = pickUsageHeaders(
      new Headers({
        "x-codex-primary-used-percent": "12",
        "X-Codex-Credits-Balance": "3",
        "content-type": "text/event-stream",
        "set-cookie": "a=b",
      }),
    );
    expect(Object.keys(picked).sort()).toEqual(["x-codex-credits-balance", "x-codex-primary-used-percent"]);
    expect(picked["x-codex-primary-used-percent"]).toBe("12");
  });
});
