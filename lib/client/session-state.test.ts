import { describe, expect, it } from "vitest";
import { capabilitiesOf, nextCheckDelayMs, parsePublicSessionState, signInMethodOf, signInOptionsOf } from "./session-state";

describe("parsePublicSessionState", () => {
  it("accepts every documented state and drops unknown fields", () => {
    expect(parsePublicSessionState({ status: "unauthenticated", extra: 1 })).toEqual({ status: "unauthenticated" });
    expect(
      parsePublicSessionState({ status: "pending", userCode: "ABCD-1234", verificationUrl: "https://x.test/device", interval: 5, expiresAt: 1_700_000_000_000 }),
    ).toEqual({ status: "pending", userCode: "ABCD-1234", verificationUrl: "https://x.test/device", interval: 5, expiresAt: 1_700_000_000_000 });
    expect(parsePublicSessionState({ status: "pending", userCode: "ABCD-1234", interval: 5, nextCheckInMs: 1_250 })).toEqual({
      status: "pending",
      userCode: "ABCD-1234",
      interval: 5,
      nextCheckInMs: 1_250,
    });
    expect(
      parsePublicSessionState({ status: "authenticated", user: { accountId: "a", email: "e@x.test", plan: "plus", more: true } }),
    ).toEqual({ status: "authenticated", user: { accountId: "a", email: "e@x.test", plan: "plus" } });
    expect(parsePublicSessionState({ status: "expired", error: "authorization_expired", message: "gone" })).toEqual({
      status: "expired",
      error: "authorization_expired",
      message: "gone",
    });
  });

  it("keeps where a signed-in state says chats are kept, and refuses any other value", () => {
    const user = { accountId: "a", email: "e@x.test", plan: "plus" };
    expect(parsePublicSessionState({ status: "authenticated", user, history: "server" })).toEqual({ status: "authenticated", user, history: "server" });
    expect(parsePublicSessionState({ status: "authenticated", user, history: "browser" })).toEqual({ status: "authenticated", user, history: "browser" });
    expect(parsePublicSessionState({ status: "authenticated", user, history: "cloud" })).toBeUndefined();
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
      { status: "pending", nextCheckInMs: "soon" },
      { status: "authenticated", user: { accountId: "a", email: "e" } },
      { status: "authenticated", user: "me" },
      { status: "error", message: null },
    ]) {
      expect(parsePublicSessionState(bad)).toBeUndefined();
    }
  });
});

describe("the sign-in fields (Sign in with ChatGPT)", () => {
  it("reads the ways to sign in, the session's method, its plan usage and a logout's revocation", () => {
    expect(parsePublicSessionState({ status: "unauthenticated", signIn: { methods: ["device", "siwc"], siwc: "needs_loopback" } })).toEqual({
      status: "unauthenticated",
      signIn: { methods: ["device", "siwc"], siwc: "needs_loopback" },
    });
    expect(
      parsePublicSessionState({
        status: "authenticated",
        user: { accountId: "sub-1", email: "e@x.test", plan: "unknown" },
        signIn: "siwc",
        siwc: { planUsage: false, showPlanNotice: true },
      }),
    ).toEqual({
      status: "authenticated",
      user: { accountId: "sub-1", email: "e@x.test", plan: "unknown" },
      signIn: "siwc",
      siwc: { planUsage: false, showPlanNotice: true },
    });
    expect(parsePublicSessionState({ status: "unauthenticated", revocation: "unconfirmed" })).toEqual({ status: "unauthenticated", revocation: "unconfirmed" });
  });

  it("reads what a signed-in session may do (capabilities), and refuses a malformed one", () => {
    const none = { voice: false, agentVoice: false, pictures: false, tokenExport: false };
    const state = { status: "authenticated", user: { accountId: "a", email: "e", plan: "p" }, capabilities: { ...none, extra: true } };
    expect(parsePublicSessionState(state)).toEqual({ status: "authenticated", user: { accountId: "a", email: "e", plan: "p" }, capabilities: none });
    expect(capabilitiesOf(parsePublicSessionState(state)!)).toEqual(none);
    for (const capabilities of [{ ...none, voice: "no" }, { voice: true }, [], "all"]) {
      expect(parsePublicSessionState({ ...state, capabilities }), JSON.stringify(capabilities)).toBeUndefined();
    }
    // A server from before the field offers everything it serves.
    expect(capabilitiesOf({ status: "authenticated" })).toEqual({ voice: true, agentVoice: true, pictures: true, tokenExport: true });
  });

  it("rejects a malformed sign-in field", () => {
    for (const bad of [
      { status: "unauthenticated", signIn: { methods: ["device", "password"] } },
      { status: "unauthenticated", signIn: { methods: "device" } },
      { status: "unauthenticated", signIn: { methods: ["siwc"], siwc: "maybe" } },
      { status: "authenticated", user: { accountId: "a", email: "e", plan: "p" }, signIn: "oauth" },
      { status: "authenticated", user: { accountId: "a", email: "e", plan: "p" }, siwc: { planUsage: "yes", showPlanNotice: false } },
      { status: "unauthenticated", revocation: "maybe" },
    ]) {
      expect(parsePublicSessionState(bad)).toBeUndefined();
    }
  });

  it("treats a server that does not say as device code only", () => {
    expect(signInOptionsOf({ status: "unauthenticated" })).toEqual({ methods: ["device"] });
    expect(signInOptionsOf(null)).toEqual({ methods: ["device"] });
    expect(signInOptionsOf({ status: "unauthenticated", signIn: { methods: ["siwc"], siwc: "available" } })).toEqual({ methods: ["siwc"], siwc: "available" });
    expect(signInMethodOf({ status: "authenticated" })).toBe("device");
    expect(signInMethodOf({ status: "authenticated", signIn: "siwc" })).toBe("siwc");
  });
});

describe("nextCheckDelayMs", () => {
  it("waits as long as the server says the provider may not be asked yet, never a whole interval more", () => {
    expect(nextCheckDelayMs({ status: "pending", interval: 5, nextCheckInMs: 4_200 })).toBe(4_200);
    expect(nextCheckDelayMs({ status: "pending", interval: 5, nextCheckInMs: 40 })).toBe(40);
    expect(nextCheckDelayMs({ status: "pending", interval: 5, nextCheckInMs: 0 })).toBe(0);
  });

  it("falls back to the interval from a server that does not say (in seconds, at least one)", () => {
    expect(nextCheckDelayMs({ status: "pending", interval: 7 })).toBe(7_000);
    expect(nextCheckDelayMs({ status: "pending", interval: 0 })).toBe(1_000);
    expect(nextCheckDelayMs({ status: "pending" })).toBe(5_000);
  });

  it("never waits longer than the interval, nor less than nothing", () => {
    expect(nextCheckDelayMs({ status: "pending", interval: 5, nextCheckInMs: 60_000 })).toBe(5_000);
    expect(nextCheckDelayMs({ status: "pending", interval: 5, nextCheckInMs: -3 })).toBe(0);
  });
});
