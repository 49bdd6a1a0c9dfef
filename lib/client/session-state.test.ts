import { describe, expect, it } from "vitest";
import { parsePublicSessionState } from "./session-state";

describe("parsePublicSessionState", () => {
  it("accepts every documented state and drops unknown fields", () => {
    expect(parsePublicSessionState({ status: "unauthenticated", extra: 1 })).toEqual({ status: "unauthenticated" });
    expect(
      parsePublicSessionState({ status: "pending", userCode: "ABCD-1234", verificationUrl: "https://x.test/device", interval: 5, expiresAt: 1_700_000_000_000 }),
    ).toEqual({ status: "pending", userCode: "ABCD-1234", verificationUrl: "https://x.test/device", interval: 5, expiresAt: 1_700_000_000_000 });
    expect(
      parsePublicSessionState({ status: "authenticated", user: { accountId: "a", email: "e@x.test", plan: "plus", more: true } }),
    ).toEqual({ status: "authenticated", user: { accountId: "a", email: "e@x.test", plan: "plus" } });
    expect(parsePublicSessionState({ status: "expired", error: "authorization_expired", message: "gone" })).toEqual({
      status: "expired",
      error: "authorization_expired",
      message: "gone",
    });
  });

  it("rejects anything else", () => {
    for (const bad of [
      null,
      "authenticated",
      [],
      {},
      { status: "signed-in" },
      { status: "pending", userCode: 42 },
      { status: "pending", interval: "5" },
      { status: "pending", expiresAt: Number.NaN },
      { status: "authenticated", user: { accountId: "a", email: "e" } },
      { status: "authenticated", user: "me" },
      { status: "error", message: null },
    ]) {
      expect(parsePublicSessionState(bad)).toBeUndefined();
    }
  });
});
