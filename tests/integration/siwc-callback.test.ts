import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findLeakedTokens } from "./harness";
import { startSiwcHarness, type SiwcHarness } from "./siwc-support";

let harness: SiwcHarness;
beforeEach(async () => {
  harness = await startSiwcHarness();
});
afterEach(async () => {
  expect(findLeakedTokens(harness.evidence)).toEqual([]);
  await harness.close();
});

describe("GET /auth/callback signs in", () => {
  it("exchanges the code (form, PKCE, resource), verifies the ID token and signs in under a new session id", async () => {
    const browser = harness.browser();
    const { authorizeUrl, callbackUrl } = await browser.authorize();
    expect(callbackUrl.pathname).toBe("/auth/callback");
    const reply = await browser.request("GET", callbackUrl.href);
    expect(reply.status).toBe(303);
    expect(reply.location).toBe("/");
    expect(browser.cookies.get("lwc_session")).toBeDefined();

    const [exchange] = harness.callsTo("token");
    expect(exchange!.form!.get("grant_type")).toBe("authorization_code");
    expect(exchange!.form!.get("client_id")).toBe(callbackUrl.searchParams.get("client_id"));
    expect(exchange!.form!.get("client_id")).toMatch(/^oaiapp_/);
    expect(exchange!.form!.get("redirect_uri")).toBe(authorizeUrl.searchParams.get("redirect_uri"));
    expect(exchange!.form!.get("resource")).toBe("https://api.openai.com/v1");
    expect(exchange!.form!.get("code_verifier")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(exchange!.status).toBe(200);

    const session = await browser.session();
    expect(session).toMatchObject({
      status: "authenticated",
      signIn: "siwc",
      siwc: { planUsage: true, showPlanNotice: true },
      user: { email: expect.stringContaining("@"), plan: "unknown" },
      // Plan usage covers text replies only: what the page and the routes ask instead of the sign-in.
      capabilities: { voice: false, agentVoice: false, pictures: false, tokenExport: false },
    });
  });

  it("rotates the session id: a session cookie held before the sign-in is worthless after it", async () => {
    const browser = harness.browser();
    await browser.post("/login"); // a device-code login gives this browser a session first
    const before = browser.cookies.get("lwc_session");
    expect(before).toBeDefined();
    await browser.signIn();
    expect(browser.cookies.get("lwc_session")).not.toBe(before);
    const old = await harness.browser();
    old.cookies.set("lwc_session", before!);
    expect((await old.session()).status).toBe("unauthenticated");
  });

  it("signs in without plan usage when only identity was granted (the token reply's scope decides)", async () => {
    const browser = harness.browser();
    expect((await browser.signIn("identity_only")).location).toBe("/");
    expect(await browser.session()).toMatchObject({ status: "authenticated", signIn: "siwc", siwc: { planUsage: false, showPlanNotice: false } });
  });
});

describe("GET /auth/callback refuses a state that is not this browser's open attempt", () => {
  it("answers 400 siwc_state_invalid for a used state, with no second exchange", async () => {
    const browser = harness.browser();
    const { callbackUrl } = await browser.authorize();
    expect((await browser.request("GET", callbackUrl.href)).status).toBe(303);
    const again = await browser.request("GET", callbackUrl.href);
    expect(again.status).toBe(400);
    expect(again.json()).toMatchObject({ error: "siwc_state_invalid", message: expect.any(String) });
    expect(harness.callsTo("token").length).toBe(1);
  });

  it("lets one of two simultaneous callbacks with the same state through, and exchanges once", async () => {
    const browser = harness.browser();
    const { callbackUrl } = await browser.authorize();
    const replies = await Promise.all([browser.request("GET", callbackUrl.href), browser.request("GET", callbackUrl.href)]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([303, 400]);
    expect(harness.callsTo("token").length).toBe(1);
  });

  it("answers 400 for an unknown or missing state, with no exchange", async () => {
    const browser = harness.browser();
    const { callbackUrl } = await browser.authorize();
    const forged = new URL(callbackUrl);
    forged.searchParams.set("state", "not-the-state");
    expect((await browser.request("GET", forged.href)).status).toBe(400);
    forged.searchParams.delete("state");
    expect((await browser.request("GET", forged.href)).status).toBe(400);
    const doubled = new URL(callbackUrl);
    doubled.searchParams.append("state", "another");
    expect((await browser.request("GET", doubled.href)).status).toBe(400);
    expect(harness.callsTo("token")).toEqual([]);
    // The real state still works.
    expect((await browser.request("GET", callbackUrl.href)).status).toBe(303);
  });

  it("answers 400 when another browser brings the callback (login CSRF), and the starter can still finish", async () => {
    const victim = harness.browser();
    const starter = harness.browser();
    const { callbackUrl } = await starter.authorize();
    // The starter's code and state reach another browser (without that attempt's binding cookie).
    expect((await victim.request("GET", callbackUrl.href)).status).toBe(400);
    expect(await victim.session()).toMatchObject({ status: "unauthenticated" });
    expect(harness.callsTo("token")).toEqual([]);
    // The attempt was not used up by the refusal: its own browser finishes it.
    expect((await starter.request("GET", callbackUrl.href)).location).toBe("/");
    expect(await starter.session()).toMatchObject({ status: "authenticated", signIn: "siwc" });
  });

  it("decides plan usage by the token reply's scope alone, never the callback's", async () => {
    const identityOnly = harness.browser();
    const { callbackUrl: granted } = await identityOnly.authorize("identity_only");
    // The callback's own scope claims plan usage; the token reply (identity only) does not grant it.
    granted.searchParams.set("scope", "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct");
    expect((await identityOnly.request("GET", granted.href)).location).toBe("/");
    expect(await identityOnly.session()).toMatchObject({ siwc: { planUsage: false } });

    const full = harness.browser();
    const { callbackUrl: approved } = await full.authorize("approve", "?new=1");
    approved.searchParams.set("scope", "openid profile email");
    expect((await full.request("GET", approved.href)).location).toBe("/");
    expect(await full.session()).toMatchObject({ siwc: { planUsage: true } });
  });

  it("answers 400 for a state older than 10 minutes", async () => {
    const browser = harness.browser();
    const { callbackUrl } = await browser.authorize();
    harness.clock.advance(10 * 60_000 + 1);
    expect((await browser.request("GET", callbackUrl.href)).status).toBe(400);
    expect(harness.callsTo("token")).toEqual([]);
  });
});

describe("GET /auth/callback failures go back to the page with ?signin_error=", () => {
  it("access_denied: siwc_access_denied, no exchange", async () => {
    const reply = await harness.browser().signIn("decline");
    expect(reply.status).toBe(303);
    expect(reply.location).toBe("/?signin_error=siwc_access_denied");
    expect(harness.callsTo("token")).toEqual([]);
  });

  it("a new registration without an issued client id: siwc_registration_incomplete, no exchange", async () => {
    harness.mock.siwc.arm({ switch: "authorize_omit_client_id" });
    expect((await harness.browser().signIn()).location).toBe("/?signin_error=siwc_registration_incomplete");
    expect(harness.callsTo("token")).toEqual([]);
  });

  it("saves the issued client id before the exchange: a failed exchange's next start reuses it", async () => {
    harness.mock.siwc.arm({ switch: "token_invalid_grant", grant: "authorization_code" });
    const browser = harness.browser();
    const { callbackUrl } = await browser.authorize();
    expect((await browser.request("GET", callbackUrl.href)).location).toBe("/?signin_error=siwc_exchange_failed");
    const next = new URL((await browser.start()).location!).searchParams;
    expect(next.get("client_id")).toBe(callbackUrl.searchParams.get("client_id"));
    expect(next.has("agent_name_hint")).toBe(false);
  });

  it("an ID token that does not verify (expired): invalid_id_token, nobody signed in", async () => {
    harness.mock.siwc.advanceClock(-2 * 3600);
    const browser = harness.browser();
    expect((await browser.signIn()).location).toBe("/?signin_error=invalid_id_token");
    expect((await browser.session()).status).toBe("unauthenticated");
  });

  for (const bad of ["id_token_bad_signature", "id_token_wrong_issuer", "id_token_wrong_audience", "id_token_wrong_nonce", "id_token_expired"] as const) {
    it(`an ID token with ${bad.replace("id_token_", "").replaceAll("_", " ")}: invalid_id_token, its refresh token revoked`, async () => {
      harness.mock.siwc.arm({ switch: bad });
      const browser = harness.browser();
      expect((await browser.signIn()).location).toBe("/?signin_error=invalid_id_token");
      expect((await browser.session()).status).toBe("unauthenticated");
      expect(harness.callsTo("revoke").map((call) => call.status)).toEqual([200]);
    });
  }

  it("keys that cannot be had (JWKS 5xx or empty): identity_verification_unavailable", async () => {
    harness.mock.siwc.arm({ switch: "jwks_server_error" });
    expect((await harness.browser().signIn()).location).toBe("/?signin_error=identity_verification_unavailable");
    harness.mock.siwc.arm({ switch: "jwks_empty" });
    expect((await harness.browser().signIn()).location).toBe("/?signin_error=identity_verification_unavailable");
    // Then the keys come back and the sign-in works.
    expect((await harness.browser().signIn()).location).toBe("/");
  });

  it("the token endpoint unavailable: siwc_exchange_failed", async () => {
    harness.mock.siwc.arm({ switch: "token_temporarily_unavailable", grant: "authorization_code" });
    expect((await harness.browser().signIn()).location).toBe("/?signin_error=siwc_exchange_failed");
  });
});

describe("a returning person reuses the registration", () => {
  async function registered(): Promise<{ clientId: string }> {
    const browser = harness.browser();
    const { callbackUrl } = await browser.authorize();
    expect((await browser.request("GET", callbackUrl.href)).location).toBe("/");
    expect((await browser.post("/logout")).status).toBe(200);
    return { clientId: callbackUrl.searchParams.get("client_id")! };
  }

  it("starts with the issued client id and login hint, no agent name, and signs in as the same sub", async () => {
    const browser = harness.browser();
    const { callbackUrl: first } = await browser.authorize("approve", "", { email: "owner@example.com" });
    expect((await browser.request("GET", first.href)).location).toBe("/");
    await browser.post("/logout");
    const { authorizeUrl, callbackUrl } = await browser.authorize();
    expect(authorizeUrl.searchParams.get("client_id")).toBe(first.searchParams.get("client_id"));
    expect(authorizeUrl.searchParams.get("login_hint")).toBe("owner@example.com");
    expect(authorizeUrl.searchParams.has("agent_name_hint")).toBe(false);
    expect((await browser.request("GET", callbackUrl.href)).location).toBe("/");
    expect(await browser.session()).toMatchObject({ status: "authenticated", signIn: "siwc" });
  });

  it("gives a browser that never signed in here the server's registration but not its owner's email", async () => {
    const { clientId } = await registered();
    const stranger = harness.browser();
    const { authorizeUrl, callbackUrl } = await stranger.authorize();
    expect(authorizeUrl.searchParams.get("client_id")).toBe(clientId);
    expect(authorizeUrl.searchParams.has("login_hint")).toBe(false);
    expect(authorizeUrl.searchParams.has("agent_name_hint")).toBe(false);
    // A started attempt is no sign-in: its binding cookie alone earns no hint.
    expect(new URL((await stranger.start()).location!).searchParams.has("login_hint")).toBe(false);
    // A binding cookie made up (not signed by this server) neither.
    const forger = harness.browser();
    forger.cookies.set("lwc_siwc_browser", "forged.value");
    expect(new URL((await forger.start()).location!).searchParams.has("login_hint")).toBe(false);
    // Once it signs in with that registration itself, it is a returning browser.
    expect((await stranger.request("GET", callbackUrl.href)).location).toBe("/");
    expect(new URL((await stranger.start()).location!).searchParams.get("login_hint")).toContain("@");
  });

  it("recognises the person by their browser first: A, then B, then A again reuses A's registration", async () => {
    const a = harness.browser();
    const { callbackUrl: first } = await a.authorize("approve", "", { email: "a@example.com" });
    expect((await a.request("GET", first.href)).location).toBe("/");
    await a.post("/logout");
    const b = harness.browser();
    const { callbackUrl: second } = await b.authorize("approve", "?new=1", { email: "b@example.com" });
    expect((await b.request("GET", second.href)).location).toBe("/");
    await b.post("/logout");
    const clientOfA = first.searchParams.get("client_id");
    const clientOfB = second.searchParams.get("client_id");
    expect(clientOfA).not.toBe(clientOfB);

    const again = new URL((await a.start()).location!).searchParams;
    expect(again.get("client_id")).toBe(clientOfA);
    expect(again.get("login_hint")).toBe("a@example.com");
    // A browser the server has not seen gets the server's last registration, without B's email.
    const unseen = new URL((await harness.browser().start()).location!).searchParams;
    expect(unseen.get("client_id")).toBe(clientOfB);
    expect(unseen.has("login_hint")).toBe(false);
  });

  it("accepts a callback without client_id on a reauthorization", async () => {
    await registered();
    harness.mock.siwc.configure({ reauthClientId: "omit" });
    const browser = harness.browser();
    const { callbackUrl } = await browser.authorize();
    expect(callbackUrl.searchParams.has("client_id")).toBe(false);
    expect((await browser.request("GET", callbackUrl.href)).location).toBe("/");
  });

  it("?new=1 registers anew (dynamic_agent_client with the agent name)", async () => {
    await registered();
    const q = new URL((await harness.browser().start("?new=1")).location!).searchParams;
    expect(q.get("client_id")).toBe("dynamic_agent_client");
    expect(q.get("agent_name_hint")).toBeTruthy();
  });

  it("a callback naming another client id: siwc_client_mismatch, no exchange, the registration kept", async () => {
    const { clientId } = await registered();
    const exchanges = harness.callsTo("token").length;
    harness.mock.siwc.arm({ switch: "authorize_other_client_id" });
    expect((await harness.browser().signIn()).location).toBe("/?signin_error=siwc_client_mismatch");
    expect(harness.callsTo("token").length).toBe(exchanges);
    expect(new URL((await harness.browser().start()).location!).searchParams.get("client_id")).toBe(clientId);
  });

  it("another account (a different sub): account_mismatch, not signed in, the registration kept", async () => {
    const { clientId } = await registered();
    harness.mock.siwc.arm({ switch: "authorize_other_account" });
    const browser = harness.browser();
    expect((await browser.signIn()).location).toBe("/?signin_error=account_mismatch");
    expect((await browser.session()).status).toBe("unauthenticated");
    const next = new URL((await harness.browser().start()).location!).searchParams;
    expect(next.get("client_id")).toBe(clientId);
    // The tokens the other account got were not kept: their refresh token was revoked.
    expect(harness.callsTo("revoke").length).toBeGreaterThanOrEqual(2);
  });
});
