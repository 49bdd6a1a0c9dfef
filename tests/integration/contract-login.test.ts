/**
 * The login nonce is our page's protection, not the contract's price. A client that sends only the
 * cookie signs in exactly as the contract says; a client that opts in (x-lwc-login-nonce, as our
 * page does) gets a login bound to it, and never sees, polls or resumes a pending login it cannot
 * prove it started, so a pending cookie planted in the page is worth nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createEvidence, findLeakedTokens, sameLogin, startHarness, type Harness } from "./harness";

const evidence = createEvidence();
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ evidence, handler: { loginRateLimit: { limit: 1000, windowMs: 60_000 } } });
});
afterAll(async () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
  await h.close();
});
beforeEach(() => h.mock.clearFaults());

const usercodeCalls = () => h.mock.requests({ path: "/api/accounts/deviceauth/usercode" }).length;
const pollCalls = () => h.mock.requests({ path: "/api/accounts/deviceauth/token" }).length;
const NONCE = "x-lwc-login-nonce";

describe("a client that sends the cookie alone (the contract)", () => {
  it("starts a login, reuses it on a second POST /login, sees it on /session and completes it on /status", async () => {
    const client = h.client();
    const started = await client.post("/login");
    expect(started.status).toBe(200);
    const pending = started.json<{ status: string; userCode: string }>();
    expect(pending.status).toBe("pending");

    const codes = usercodeCalls();
    const again = await client.post("/login");
    expect(again.status).toBe(200);
    expect(again.json()).toEqual(sameLogin(pending));
    expect(usercodeCalls()).toBe(codes);

    expect((await client.get("/session")).json()).toEqual(sameLogin(pending));
    const polls = pollCalls();
    expect((await client.get("/status")).json()).toEqual(sameLogin(pending));
    expect(pollCalls()).toBe(polls + 1);

    expect(h.mock.approve(pending.userCode)).toBe(true);
    h.clock.advance(5_000); // one interval: /status may poll again
    expect((await client.get("/status")).json()).toMatchObject({ status: "authenticated" });
    expect((await client.get("/session")).json()).toMatchObject({ status: "authenticated" });
    // Nothing in the exchange asked this client for more than the cookie.
    expect(started.headers.get(NONCE)).toBeNull();
  });

  it("treats an empty x-lwc-login-nonce header as absent", async () => {
    const client = h.client();
    const pending = (await client.post("/login", undefined, { [NONCE]: "" })).json();
    expect((await client.get("/session", { [NONCE]: " " })).json()).toEqual(sameLogin(pending));
  });
});

describe("a client that opts in (our page)", () => {
  it("gets a login bound to it: the nonce comes back once, and without it the login is not shown", async () => {
    const page = h.client({ page: true });
    const started = await page.post("/login");
    const nonce = started.headers.get(NONCE);
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const pending = started.json<{ userCode: string }>();
    expect((await page.get("/session")).json()).toEqual(sameLogin(pending));

    const cookieOnly = h.client();
    cookieOnly.cookie = page.cookie;
    const polls = pollCalls();
    expect((await cookieOnly.get("/session")).json()).toEqual({ status: "unauthenticated" });
    expect((await cookieOnly.get("/status")).json()).toEqual({ status: "unauthenticated" });
    expect(pollCalls()).toBe(polls);
  });

  it("never shows or polls a pending login it did not start, and its POST /login starts a fresh one under a new id", async () => {
    // Someone starts a login with the cookie alone and plants the cookie in the victim's browser.
    const planter = h.client();
    const planted = (await planter.post("/login")).json<{ userCode: string }>();
    const victim = h.client({ page: true });
    victim.cookie = planter.cookie;

    const polls = pollCalls();
    expect((await victim.get("/session")).json()).toEqual({ status: "unauthenticated" });
    expect((await victim.get("/status")).json()).toEqual({ status: "unauthenticated" });
    expect(pollCalls()).toBe(polls);

    const codes = usercodeCalls();
    const own = (await victim.post("/login")).json<{ userCode: string }>();
    expect(usercodeCalls()).toBe(codes + 1);
    expect(own.userCode).not.toBe(planted.userCode);
    expect(victim.cookie).not.toBe(planter.cookie);

    // The victim approves the code its page shows: the planter's cookie leads nowhere.
    expect(h.mock.approve(own.userCode)).toBe(true);
    expect((await planter.get("/status")).json()).toEqual({ status: "unauthenticated" });
    expect((await victim.get("/status")).json()).toMatchObject({ status: "authenticated" });
  });

  it("a stale nonce (from an earlier login) proves nothing: the page starts a fresh login", async () => {
    const page = h.client({ page: true });
    const first = (await page.post("/login")).json<{ userCode: string }>();
    const firstNonce = page.loginNonce!;
    const other = h.client({ page: true });
    other.cookie = page.cookie;
    other.loginNonce = `${firstNonce.slice(0, -1)}${firstNonce.endsWith("A") ? "B" : "A"}`;
    const fresh = (await other.post("/login")).json<{ userCode: string }>();
    expect(fresh.userCode).not.toBe(first.userCode);
    expect(other.loginNonce).not.toBe(firstNonce);
  });

  it("resumes its own login with its nonce: same code, no upstream call", async () => {
    const page = h.client({ page: true });
    const first = (await page.post("/login")).json();
    const codes = usercodeCalls();
    expect((await page.post("/login")).json()).toEqual(sameLogin(first));
    expect(usercodeCalls()).toBe(codes);
    expect((await page.get("/session")).json()).toEqual(sameLogin(first));
  });
});
