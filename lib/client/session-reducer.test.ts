import { describe, expect, it } from "vitest";
import {
  initialSessionModel,
  nextCheckAfter,
  SESSION_ENDED_REASON,
  sessionReducer,
  sessionView,
  type SessionEvent,
  type SessionModel,
} from "./session-reducer";
import type { PublicSessionState } from "./session-state";

const T0 = 1_700_000_000_000;
const user = { accountId: "acct", email: "e@x.test", plan: "plus" };
const signedIn: PublicSessionState = { status: "authenticated", user };
const signedOut: PublicSessionState = { status: "unauthenticated" };
const pending: PublicSessionState = { status: "pending", userCode: "ABCD-1234", verificationUrl: "https://x.test/device", interval: 5, expiresAt: T0 + 15 * 60_000 };
const failure = { code: "network_error", message: "The server could not reach ChatGPT. Try again in a moment." };

const run = (...events: SessionEvent[]): SessionModel => events.reduce(sessionReducer, initialSessionModel(T0));
const at = (state: PublicSessionState, time = T0): SessionEvent => ({ type: "received", state, at: time });

describe("the session model", () => {
  it("is loading until the first answer, which it then shows", () => {
    expect(sessionView(initialSessionModel(T0))).toMatchObject({ status: "loading", user: null, secondsLeft: null, nextCheckInSeconds: null });
    const model = run({ type: "first-read", state: signedIn, at: T0, returnedSignInError: null });
    expect(sessionView(model)).toMatchObject({ status: "authenticated", user, signInMethod: "device", siwc: null });
  });

  it("shows a signed-in session's capabilities as the server says them, and none when signed out", () => {
    const none = { voice: false, agentVoice: false, pictures: false, tokenExport: false };
    const siwcSession: PublicSessionState = { ...signedIn, signIn: "siwc", capabilities: none };
    expect(sessionView(run(at(siwcSession))).capabilities).toEqual(none);
    expect(sessionView(run(at(signedIn))).capabilities).toEqual({ voice: true, agentVoice: true, pictures: true, tokenExport: true });
    expect(sessionView(run(at(signedIn), at(signedOut))).capabilities).toBeNull();
  });

  it("says why a signed-in session ended when it was not signed out here, until the next sign-in", () => {
    const ended = run(at(signedIn), at(signedOut));
    expect(ended.signedOutReason).toBe(SESSION_ENDED_REASON);
    expect(sessionReducer(ended, { type: "sign-in-started" }).signedOutReason).toBeNull();
  });

  it("says nothing when the sign-out was this page's own", () => {
    const model = run(at(signedIn), { type: "sign-out-started" }, { type: "request-started" }, at(signedOut), { type: "request-ended" }, { type: "sign-out-ended" });
    expect(model.signedOutReason).toBeNull();
    expect(model).toMatchObject({ busy: false, signingOut: false });
  });

  it("clears an error and a poll warning with the next answer", () => {
    const failed = run({ type: "failed", error: failure }, { type: "poll-failed", error: failure, nextCheckAt: T0 + 5000 });
    expect(failed.error).toEqual(failure);
    expect(failed.pollWarning).toBe(`${failure.message} Still checking…`);
    expect(sessionReducer(failed, at(pending))).toMatchObject({ error: null, pollWarning: null });
  });

  it("shows the sign-in screen with the error when the first read fails", () => {
    const model = run({ type: "first-read-failed", error: failure });
    expect(sessionView(model).status).toBe("unauthenticated");
    expect(model.error).toEqual(failure);
  });

  it("says a failed Continue with ChatGPT that came back, unless the session is signed in anyway", () => {
    const returned = { code: "access_denied", message: "You cancelled." };
    expect(run({ type: "first-read", state: signedOut, at: T0, returnedSignInError: returned }).signInError).toEqual(returned);
    expect(run({ type: "first-read", state: signedIn, at: T0, returnedSignInError: returned }).signInError).toBeNull();
    expect(run({ type: "first-read", state: signedOut, at: T0, returnedSignInError: returned }, { type: "sign-in-started" }).signInError).toBeNull();
  });

  it("keeps the ways to sign in from the latest signed-out state that named them", () => {
    const both = { methods: ["device" as const, "siwc" as const], siwc: "available" as const };
    const model = run(at({ status: "unauthenticated", signIn: both }), at({ status: "pending", userCode: "X" }));
    expect(model.signInOptions).toEqual(both);
    expect(initialSessionModel(T0).signInOptions).toEqual({ methods: ["device"] });
  });

  it("remembers an unconfirmed revocation until the next sign-in or sign-out", () => {
    const model = run(at({ status: "unauthenticated", revocation: "unconfirmed" }), at(signedOut));
    expect(model.revocationUnconfirmed).toBe(true);
    expect(sessionReducer(model, { type: "sign-in-started" }).revocationUnconfirmed).toBe(false);
    expect(sessionReducer(model, { type: "sign-out-started" }).revocationUnconfirmed).toBe(false);
  });

  it("is on its way to ChatGPT from the button until the page comes back", () => {
    const away = run({ type: "redirect-started" });
    expect(away.redirecting).toBe(true);
    expect(sessionReducer(away, { type: "page-restored" }).redirecting).toBe(false);
  });

  it("hides the one-time plan notice of a SIWC session at once", () => {
    const siwc: PublicSessionState = { status: "authenticated", user, signIn: "siwc", siwc: { planUsage: true, showPlanNotice: true } };
    const model = run(at(siwc));
    expect(sessionView(model)).toMatchObject({ signInMethod: "siwc", siwc: { planUsage: true, showPlanNotice: true } });
    expect(sessionView(sessionReducer(model, { type: "plan-notice-dismissed" })).siwc).toEqual({ planUsage: true, showPlanNotice: false });
    const device = run(at(signedIn));
    expect(sessionReducer(device, { type: "plan-notice-dismissed" })).toBe(device);
  });
});

describe("the device-code clocks", () => {
  it("schedules the next check when the server says, at most one interval on", () => {
    expect(nextCheckAfter(pending, T0)).toBe(T0 + 5000);
    expect(nextCheckAfter({ ...pending, nextCheckInMs: 1250 }, T0)).toBe(T0 + 1250);
    expect(nextCheckAfter({ ...pending, nextCheckInMs: 60_000 }, T0)).toBe(T0 + 5000);
    expect(nextCheckAfter(signedIn, T0)).toBeNull();
    expect(run(at(pending), at(signedIn)).nextCheckAt).toBeNull();
  });

  it("counts down to the next check and to the code's expiry as the clock ticks", () => {
    const model = run(at(pending));
    expect(sessionView(model)).toMatchObject({ status: "pending", nextCheckInSeconds: 5, secondsLeft: 900 });
    const later = sessionReducer(model, { type: "clock-ticked", at: T0 + 3200 });
    expect(sessionView(later)).toMatchObject({ nextCheckInSeconds: 2, secondsLeft: 897 });
    expect(sessionView(sessionReducer(model, { type: "clock-ticked", at: T0 + 9000 })).nextCheckInSeconds).toBe(0);
  });

  it("counts the expiry on the server's clock", () => {
    const model = run(at(pending), { type: "server-clock-measured", offset: 60_000 });
    expect(sessionView(model).secondsLeft).toBe(840);
  });

  it("after a failed poll, checks again one interval later", () => {
    const model = run(at(pending), { type: "poll-failed", error: failure, nextCheckAt: T0 + 7000 });
    expect(sessionView(model).nextCheckInSeconds).toBe(7);
    expect(sessionView(model).status).toBe("pending");
  });
});
