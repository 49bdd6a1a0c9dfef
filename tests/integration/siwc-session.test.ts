import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findLeakedTokens } from "./harness";
import { startSiwcHarness, type SiwcBrowser, type SiwcHarness } from "./siwc-support";

/** Past the refresh threshold of a one-hour access token (refreshed when 5 minutes or less are left). */
const NEAR_EXPIRY_MS = 56 * 60_000;

let harness: SiwcHarness;
beforeEach(async () => {
  harness = await startSiwcHarness();
});
afterEach(async () => {
  expect(findLeakedTokens(harness.evidence)).toEqual([]);
  await harness.close();
});

async function signedIn(action: "approve" | "identity_only" = "approve", fields: Record<string, string> = {}): Promise<SiwcBrowser> {
  const browser = harness.browser();
  const { callbackUrl } = await browser.authorize(action, "", fields);
  expect((await browser.request("GET", callbackUrl.href)).location).toBe("/");
  return browser;
}

/** The app's clock and the provider's move on together (tokens the provider mints then carry its time). */
function advance(ms: number): void {
  harness.clock.advance(ms);
  harness.mock.siwc.advanceClock(ms / 1000);
}

const refreshes = () => harness.callsTo("token").filter((call) => call.form?.get("grant_type") === "refresh_token");

describe("refresh of a SIWC session", () => {
  it("is form-encoded with resource and no scope, and stores the rotated refresh token (a second refresh works)", async () => {
    const browser = await signedIn();
    advance(NEAR_EXPIRY_MS);
    expect(await (await browser.request("GET", "/api/provider/status")).json()).toMatchObject({ status: "authenticated", signIn: "siwc" });
    const [first] = refreshes();
    expect(first!.form!.get("client_id")).toMatch(/^oaiapp_/);
    expect(first!.form!.get("resource")).toBe("https://api.openai.com/v1");
    expect(first!.form!.has("scope")).toBe(false);
    expect(first!.form!.get("refresh_token")).toBeTruthy();
    expect(first!.status).toBe(200);

    advance(NEAR_EXPIRY_MS);
    expect((await (await browser.request("GET", "/api/provider/status")).json()).status).toBe("authenticated");
    const [, second] = refreshes();
    // The mock kills a reused refresh token: the second refresh went out with the rotated one.
    expect(second!.form!.get("refresh_token")).not.toBe(first!.form!.get("refresh_token"));
    expect(second!.status).toBe(200);
  });

  it("runs once for concurrent requests", async () => {
    const browser = await signedIn();
    advance(NEAR_EXPIRY_MS);
    const states = await Promise.all(Array.from({ length: 5 }, () => browser.request("GET", "/api/provider/status")));
    expect(states.map((reply) => reply.json<{ status: string }>().status)).toEqual(Array(5).fill("authenticated"));
    expect(refreshes().length).toBe(1);
  });

  for (const terminal of ["token_invalid_grant", "token_invalid_refresh_token", "token_token_expired", "token_refresh_token_expired", "token_refresh_token_invalidated"] as const) {
    it(`${terminal.replace(/^token_/, "")} ends the login (expired, then signed out)`, async () => {
      const browser = await signedIn();
      harness.mock.siwc.arm({ switch: terminal, grant: "refresh_token" });
      advance(NEAR_EXPIRY_MS);
      expect((await browser.request("GET", "/api/provider/status")).json()).toMatchObject({ status: "expired", error: "refresh_token_invalid" });
      expect(await browser.session()).toMatchObject({ status: "unauthenticated", signIn: { methods: ["device", "siwc"] } });
    });
  }

  for (const kept of ["token_temporarily_unavailable", "token_invalid_client"] as const) {
    it(`${kept.replace(/^token_/, "")} keeps the login and its tokens (the next refresh works)`, async () => {
      const browser = await signedIn();
      harness.mock.siwc.arm({ switch: kept, grant: "refresh_token" });
      advance(NEAR_EXPIRY_MS);
      expect((await browser.request("GET", "/api/provider/status")).json()).toMatchObject({ status: "authenticated" });
      expect((await browser.request("GET", "/api/provider/status")).json()).toMatchObject({ status: "authenticated" });
      const [failed, next] = refreshes();
      expect(failed!.status).toBeGreaterThanOrEqual(400);
      expect(next!.status).toBe(200);
      expect(next!.form!.get("refresh_token")).toBe(failed!.form!.get("refresh_token"));
    });
  }

  it("a refresh whose reply is lost keeps the login; the next refresh, with the spent token, gets refresh_token_reused and ends it", async () => {
    const browser = await signedIn();
    harness.mock.siwc.arm({ switch: "token_drop_after_rotation" });
    advance(NEAR_EXPIRY_MS);
    expect((await browser.request("GET", "/api/provider/status")).json()).toMatchObject({ status: "authenticated" });
    expect((await browser.request("GET", "/api/provider/status")).json()).toMatchObject({ status: "expired", error: "refresh_token_invalid" });
    const [lost, reused] = refreshes();
    expect(lost!.status).toBeUndefined();
    expect(reused!.form!.get("refresh_token")).toBe(lost!.form!.get("refresh_token"));
    expect(reused!.status).toBe(401);
  });

  it("a refreshed ID token naming another account ends the login, and the refresh token it came with is revoked", async () => {
    const browser = await signedIn();
    harness.mock.siwc.arm({ switch: "refresh_other_account" });
    advance(NEAR_EXPIRY_MS);
    expect((await browser.request("GET", "/api/provider/status")).json()).toMatchObject({ status: "expired", error: "refresh_token_invalid" });
    expect(harness.callsTo("revoke").map((call) => call.status)).toEqual([200]);
  });

  it("an identity-only sign-in (no refresh token) stays signed in for the session's lifetime, refreshing nothing", async () => {
    const browser = await signedIn("identity_only");
    advance(2 * 60 * 60_000);
    expect((await browser.request("GET", "/api/provider/status")).json()).toMatchObject({ status: "authenticated", siwc: { planUsage: false } });
    expect(refreshes()).toEqual([]);
  });

  it("keeps the previous scopes when the refresh reply has none", async () => {
    const browser = await signedIn();
    harness.mock.siwc.configure({ refreshScope: false, refreshIdToken: false });
    advance(NEAR_EXPIRY_MS);
    expect((await browser.request("GET", "/api/provider/status")).json()).toMatchObject({ status: "authenticated", siwc: { planUsage: true } });
  });
});

describe("sign-out of a SIWC session", () => {
  it("revokes the refresh token (form), clears the session, keeps the registration and host id: revocation confirmed", async () => {
    const browser = await signedIn();
    const hostId = await harness.store.get("lwc:siwc:host-id");
    const reply = await browser.post("/logout");
    expect(reply.status).toBe(200);
    expect(reply.json()).toMatchObject({ status: "unauthenticated", revocation: "confirmed" });
    const [revoke] = harness.callsTo("revoke");
    expect(revoke!.form!.get("token_type_hint")).toBe("refresh_token");
    expect(revoke!.form!.get("client_id")).toMatch(/^oaiapp_/);
    expect(revoke!.form!.get("token")).toBeTruthy();
    expect((await browser.session()).status).toBe("unauthenticated");
    const next = new URL((await browser.start()).location!).searchParams;
    expect(next.get("client_id")).toBe(revoke!.form!.get("client_id"));
    expect(next.get("ext_agent_host_id")).toBe(hostId);
  });

  it("tries twice: one failure is still confirmed, two are unconfirmed (signed out all the same)", async () => {
    const once = await signedIn();
    harness.mock.siwc.arm({ switch: "revoke_server_error", times: 1 });
    expect((await once.post("/logout")).json()).toMatchObject({ revocation: "confirmed" });
    expect(harness.callsTo("revoke").length).toBe(2);

    const twice = await signedIn();
    harness.mock.siwc.arm({ switch: "revoke_server_error", times: 2 });
    expect((await twice.post("/logout")).json()).toMatchObject({ status: "unauthenticated", revocation: "unconfirmed" });
    expect(harness.callsTo("revoke").length).toBe(4);
    expect((await twice.session()).status).toBe("unauthenticated");
  });

  it("a session without a refresh token (identity only) has nothing to revoke", async () => {
    const browser = await signedIn("identity_only");
    expect((await browser.post("/logout")).json()).toMatchObject({ revocation: "confirmed" });
    expect(harness.callsTo("revoke")).toEqual([]);
  });
});

describe("POST /siwc/notice and the one-time plan notice", () => {
  it("is shown on the first plan-enabled sign-in only, remembered per account on the server", async () => {
    const browser = await signedIn();
    expect(await browser.session()).toMatchObject({ siwc: { planUsage: true, showPlanNotice: true } });
    const seen = await browser.post("/siwc/notice", { origin: browser.origin });
    expect(seen.status).toBe(204);
    expect(await browser.session()).toMatchObject({ siwc: { showPlanNotice: false } });
    await browser.post("/logout");
    const again = await signedIn();
    expect(await again.session()).toMatchObject({ siwc: { planUsage: true, showPlanNotice: false } });
  });

  it("waits for the first sign-in that grants plan usage (identity only first, then Enable plan usage)", async () => {
    const browser = await signedIn("identity_only");
    expect(await browser.session()).toMatchObject({ siwc: { planUsage: false, showPlanNotice: false } });
    // A dismissal without plan usage (no notice was shown) records nothing.
    expect((await browser.post("/siwc/notice", { origin: browser.origin })).status).toBe(204);
    const { callbackUrl, authorizeUrl } = await browser.authorize("approve", "?consent=1");
    expect(authorizeUrl.searchParams.get("prompt")).toBe("consent");
    expect((await browser.request("GET", callbackUrl.href)).location).toBe("/");
    expect(await browser.session()).toMatchObject({ siwc: { planUsage: true, showPlanNotice: true } });
  });

  it("answers 401 without a SIWC session and 403 from another origin", async () => {
    const stranger = harness.browser();
    expect((await stranger.post("/siwc/notice")).json()).toMatchObject({ error: "not_authenticated", message: expect.any(String) });
    const browser = await signedIn();
    const forged = await browser.post("/siwc/notice", { origin: "https://evil.example" });
    expect(forged.status).toBe(403);
    expect(forged.json()).toMatchObject({ error: "origin_not_allowed" });
    expect(await browser.session()).toMatchObject({ siwc: { showPlanNotice: true } });
  });
});

describe("two instances of one deployment (one store)", () => {
  it("refresh a SIWC login once between them, and the other instance finds the rotated tokens", async () => {
    const other = await startSiwcHarness({ sharedMock: harness.mock, handler: { sessionStore: harness.store } });
    try {
      const here = await signedIn();
      const there = other.browser();
      there.cookies.set("lwc_session", here.cookies.get("lwc_session")!);
      advance(NEAR_EXPIRY_MS);
      other.clock.advance(NEAR_EXPIRY_MS);
      const replies = await Promise.all([
        here.request("GET", "/api/provider/status"),
        there.request("GET", "/api/provider/status"),
        here.request("GET", "/api/provider/status"),
        there.request("GET", "/api/provider/status"),
      ]);
      expect(replies.map((reply) => reply.json<{ status: string }>().status)).toEqual(Array(4).fill("authenticated"));
      const all = [...harness.callsTo("token"), ...other.callsTo("token")].filter((call) => call.form?.get("grant_type") === "refresh_token");
      expect(all.length).toBe(1);
      expect(all[0]!.status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe("the plan notice dismissed while a refresh runs", () => {
  it("waits for the refresh, so the rotated tokens are kept and the session goes on", async () => {
    let markStarted!: () => void;
    const refreshStarted = new Promise<void>((resolve) => (markStarted = resolve));
    let releaseRefresh!: () => void;
    const refreshReleased = new Promise<void>((resolve) => (releaseRefresh = resolve));
    let gate = false;
    const gatedFetch: typeof fetch = async (input, init) => {
      const refresh = typeof init?.body === "string" && init.body.includes("grant_type=refresh_token");
      if (gate && refresh) {
        markStarted();
        await refreshReleased;
      }
      return fetch(input, init);
    };
    const gated = await startSiwcHarness({ handler: { upstream: { fetch: gatedFetch } } });
    try {
      const browser = gated.browser();
      expect((await browser.signIn()).location).toBe("/");
      gate = true;
      gated.clock.advance(NEAR_EXPIRY_MS);
      gated.mock.siwc.advanceClock(NEAR_EXPIRY_MS / 1000);
      const status = browser.request("GET", "/api/provider/status");
      await refreshStarted;
      const notice = browser.post("/siwc/notice", { origin: browser.origin });
      releaseRefresh();
      expect((await status).json()).toMatchObject({ status: "authenticated" });
      expect((await notice).status).toBe(204);
      expect(await browser.session()).toMatchObject({ status: "authenticated", siwc: { showPlanNotice: false } });
      // The rotated refresh token was kept: the next refresh works.
      gated.clock.advance(NEAR_EXPIRY_MS);
      gated.mock.siwc.advanceClock(NEAR_EXPIRY_MS / 1000);
      expect((await browser.request("GET", "/api/provider/status")).json()).toMatchObject({ status: "authenticated" });
      expect(findLeakedTokens(gated.evidence)).toEqual([]);
    } finally {
      await gated.close();
    }
  });
});

describe("a revocation endpoint that does not answer", () => {
  it("is given up on after two tries (each cut at the request timeout, at most 10 s): unconfirmed, signed out", async () => {
    const slow = await startSiwcHarness({ handler: { upstream: { requestTimeoutMs: 1_000 } } });
    try {
      const browser = slow.browser();
      expect((await browser.signIn()).location).toBe("/");
      slow.mock.siwc.arm({ switch: "revoke_timeout", times: 2 });
      const started = Date.now();
      expect((await browser.post("/logout")).json()).toMatchObject({ status: "unauthenticated", revocation: "unconfirmed" });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(slow.callsTo("revoke").length).toBe(2);
      expect((await browser.session()).status).toBe("unauthenticated");
    } finally {
      await slow.close();
    }
  });
});
