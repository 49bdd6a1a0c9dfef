import { describe, expect, it } from "vitest";
import { readUpstreamErrorBody, summarizeUpstreamError } from "./error-body";

describe("readUpstreamErrorBody", () => {
  it("reads an OAuth-style string error with a description", () => {
    const error = readUpstreamErrorBody('{"error":"invalid_grant","error_description":"bad code"}');
    expect(error).toEqual({ code: "invalid_grant", codes: ["invalid_grant"], message: "bad code" });
    expect(summarizeUpstreamError(error)).toBe("invalid_grant: bad code");
  });

  it("reads an error object and keeps every code-like value for matching", () => {
    const error = readUpstreamErrorBody(
      '{"error":{"type":"invalid_request_error","message":"nope"},"code":"refresh_token_expired"}',
    );
    expect(error.codes).toEqual(["invalid_request_error", "refresh_token_expired"]);
    expect(error.message).toBe("nope");
  });

  it("reads detail, and nothing from non-JSON", () => {
    expect(readUpstreamErrorBody('{"detail":"x"}')).toEqual({ codes: [], detail: "x" });
    expect(readUpstreamErrorBody("<html>")).toEqual({ codes: [] });
    expect(summarizeUpstreamError(readUpstreamErrorBody(""))).toBeUndefined();
  });
});
