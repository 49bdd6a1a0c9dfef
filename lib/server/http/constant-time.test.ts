import { describe, expect, it } from "vitest";
import { constantTimeEquals } from "./constant-time";

describe("constantTimeEquals", () => {
  it("is true only for the same text", () => {
    expect(constantTimeEquals("nonce-1", "nonce-1")).toBe(true);
    expect(constantTimeEquals("nonce-1", "nonce-2")).toBe(false);
    expect(constantTimeEquals("nonce-1", "nonce-10")).toBe(false);
    expect(constantTimeEquals("", "")).toBe(true);
    expect(constantTimeEquals("é", "e\u0301")).toBe(false);
  });
});
