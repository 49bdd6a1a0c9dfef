import { describe, expect, it } from "vitest";
import { makeUnsignedJwt } from "@/test-support/unsigned-jwt";
import { FALLBACK_ACCESS_TOKEN_LIFETIME_MS, REFRESH_THRESHOLD_MS, computeExpiresAt, needsRefresh } from "./tokens";
import { parseIntervalSeconds } from "./device-flow";

describe("needsRefresh", () => {
  const now = 1_000_000_000;
  it("is true within the 5-minute threshold and after expiry, false before", () => {
    expect(REFRESH_THRESHOLD_MS).toBe(5 * 60_000);
    expect(needsRefresh({ expiresAt: now + REFRESH_THRESHOLD_MS + 1 }, now)).toBe(false);
    expect(needsRefresh({ expiresAt: now + REFRESH_THRESHOLD_MS }, now)).toBe(true);
    expect(needsRefresh({ expiresAt: now - 1 }, now)).toBe(true);
  });
});

describe("computeExpiresAt", () => {
  const now = 1_700_000_000_000;
  it("prefers the access token's exp", () => {
    expect(computeExpiresAt(makeUnsignedJwt({ exp: 1_700_000_600 }), 10, now)).toBe(1_700_000_600_000);
  });
  it("falls back to expires_in, then to one hour", () => {
    expect(computeExpiresAt("opaque", 120, now)).toBe(now + 120_000);
    expect(computeExpiresAt("opaque", undefined, now)).toBe(now + FALLBACK_ACCESS_TOKEN_LIFETIME_MS);
    expect(computeExpiresAt("opaque", -5, now)).toBe(now + FALLBACK_ACCESS_TOKEN_LIFETIME_MS);
  });
});

describe("parseIntervalSeconds", () => {
  it.each([
    ["5", 5],
    [" 7 ", 7],
    [3, 3],
    ["2.5", 3],
    [undefined, 5],
    ["", 5],
    ["soon", 5],
    [0, 5],
    [-1, 5],
    [null, 5],
  ])("reads %j as %d", (value, expected) => {
    expect(parseIntervalSeconds(value)).toBe(expected);
  });
});
