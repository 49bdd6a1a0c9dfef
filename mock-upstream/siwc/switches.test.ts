import { createRemoteJWKSet, decodeJwt, jwtVerify } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "../server";
import { authorizeUrl, decide, exchangeCode, newAttempt, postSiwcResponses, refreshSiwc, revokeSiwc, signInSiwc, siwcBody, type SiwcTokenReply } from "./test-flow";

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

describe("discovery and JWKS switches", () => {
  it("jwks_server_error answers 5xx once, jwks_empty an empty key set once, discovery_server_error 500", async () => {
    const jwks = `${mock.siwcIssuer}/.well-known/jwks.json`;
    mock.siwc.arm({ switch: "jwks_server_error" });
    expect((await fetch(jwks)).status).toBeGreaterThanOrEqual(500);
    mock.siwc.arm({ switch: "jwks_empty" });
    expect(await (await fetch(jwks)).json()).toEqual({ keys: [] });
    expect(((await (await fetch(jwks)).json()) as { keys: unknown[] }).keys).toHaveLength(1);
    mock.siwc.arm({ switch: "discovery_server_error" });
    expect((await fetch(`${mock.siwcIssuer}/.well-known/openid-configuration`)).status).toBe(500);
  });
});

describe("authorize switches", () => {
  it("authorize_omit_client_id: a new registration's callback lacks client_id", async () => {
    mock.siwc.arm({ switch: "authorize_omit_client_id" });
    const callback = await decide(authorizeUrl(mock, newAttempt()), "approve");
    expect(callback.searchParams.has("code")).toBe(true);
    expect(callback.searchParams.has("client_id")).toBe(false);
  });

  it("authorize_other_client_id: the callback carries a client_id that is not the saved one", async () => {
    const first = await signInSiwc(mock);
    mock.siwc.arm({ switch: "authorize_other_client_id" });
    const callback = await decide(authorizeUrl(mock, newAttempt(), first.clientId), "approve");
    expect(callback.searchParams.get("client_id")).toMatch(/^oaiapp_/);
    expect(callback.searchParams.get("client_id")).not.toBe(first.clientId);
  });

  it("authorize_other_account: the code's ID token names another sub", async () => {
    const first = await signInSiwc(mock);
    mock.siwc.arm({ switch: "authorize_other_account" });
    const again = await signInSiwc(mock, { clientId: first.clientId });
    expect(decodeJwt(again.tokens.id_token!).sub).not.toBe(decodeJwt(first.tokens.id_token!).sub);
  });

  it("callbackScope false: the callback carries no scope (the token reply still does)", async () => {
    mock.siwc.configure({ callbackScope: false });
    const callback = await decide(authorizeUrl(mock, newAttempt()), "approve");
    expect(callback.searchParams.has("scope")).toBe(false);
    expect(callback.searchParams.has("client_id")).toBe(true);
  });

  it("reauthClientId omit: a reauthorization's callback carries no client_id", async () => {
    const first = await signInSiwc(mock);
    mock.siwc.configure({ reauthClientId: "omit" });
    const callback = await decide(authorizeUrl(mock, newAttempt(), first.clientId), "approve");
    expect(callback.searchParams.has("client_id")).toBe(false);
  });

  it("prompt=consent and force_reconsent=true show consent again and are recorded; consent can grant plan usage after identity only", async () => {
    const identity = await signInSiwc(mock, { action: "identity_only" });
    // Without consent the earlier (identity-only) grant stands.
    const plain = await signInSiwc(mock, { clientId: identity.clientId });
    expect(plain.tokens.scope).toBe("email openid profile");
    const page = await (await fetch(authorizeUrl(mock, newAttempt(), identity.clientId, { prompt: "consent" }))).text();
    expect(page).toContain('value="identity_only"');
    const consented = await signInSiwc(mock, { clientId: identity.clientId, params: { prompt: "consent" } });
    expect(consented.tokens.scope).toContain("chatgpt.tokens.use.direct");
    await signInSiwc(mock, { clientId: identity.clientId, params: { force_reconsent: "true" } });
    const log = mock.siwc.snapshot().authorizations;
    expect(log.map((entry) => [entry.consentShown, entry.prompt, entry.forceReconsent])).toEqual([
      [true, null, false],
      [false, null, false],
      [true, "consent", false],
      [true, "consent", false],
      [true, null, true],
    ]);
  });
});

describe("token endpoint switches", () => {
  it.each([
    ["token_invalid_grant", "invalid_grant", 400],
    ["token_invalid_refresh_token", "invalid_refresh_token", 400],
    ["token_token_expired", "token_expired", 401],
    ["token_refresh_token_expired", "refresh_token_expired", 401],
    ["token_refresh_token_invalidated", "refresh_token_invalidated", 401],
    ["token_invalid_client", "invalid_client", 401],
    ["token_temporarily_unavailable", "temporarily_unavailable", 503],
  ] as const)("%s on refresh answers %s (%i), in both body styles, with x-request-id", async (name, code, status) => {
    const { clientId, tokens } = await signInSiwc(mock);
    mock.siwc.arm({ switch: name, grant: "refresh_token" });
    const oauth = await refreshSiwc(mock, clientId, tokens.refresh_token!);
    expect(oauth.status).toBe(status);
    expect(oauth.headers.get("x-request-id")).toMatch(/^req_/);
    expect(await oauth.json()).toEqual({ error: code, error_description: expect.any(String) });
    mock.siwc.configure({ errorStyle: "nested" });
    mock.siwc.arm({ switch: name });
    expect(await (await refreshSiwc(mock, clientId, tokens.refresh_token!)).json()).toEqual({ error: { code, message: expect.any(String) } });
    // The switch fired before the token was looked at: it still works.
    expect((await refreshSiwc(mock, clientId, tokens.refresh_token!)).status).toBe(200);
  });

  it("a switch limited to refresh leaves the code exchange alone, and one for the code exchange fires there", async () => {
    mock.siwc.arm({ switch: "token_invalid_grant", grant: "refresh_token" });
    await signInSiwc(mock);
    mock.siwc.arm({ switch: "token_invalid_grant", grant: "authorization_code" });
    await expect(signInSiwc(mock)).rejects.toThrow(/invalid_grant/);
  });

  it("token_drop_after_rotation: the refresh rotates, then the connection drops; the old token is spent", async () => {
    const { clientId, tokens } = await signInSiwc(mock);
    mock.siwc.arm({ switch: "token_drop_after_rotation" });
    await expect(refreshSiwc(mock, clientId, tokens.refresh_token!)).rejects.toThrow();
    expect(mock.siwc.snapshot().families[0]).toMatchObject({ rotations: 1, ended: null });
    expect(await (await refreshSiwc(mock, clientId, tokens.refresh_token!)).json()).toMatchObject({ error: "refresh_token_reused" });
  });

  it("reuseKillsFamily false: a reused token is refused but the newest still works", async () => {
    mock.siwc.configure({ reuseKillsFamily: false });
    const { clientId, tokens } = await signInSiwc(mock);
    const next = (await (await refreshSiwc(mock, clientId, tokens.refresh_token!)).json()) as SiwcTokenReply;
    expect((await refreshSiwc(mock, clientId, tokens.refresh_token!)).status).toBe(401);
    expect((await refreshSiwc(mock, clientId, next.refresh_token!)).status).toBe(200);
  });

  it("refresh replies without scope and id_token when set so; refresh_other_account sends another sub", async () => {
    const { clientId, tokens } = await signInSiwc(mock);
    mock.siwc.configure({ refreshScope: false, refreshIdToken: false });
    const bare = (await (await refreshSiwc(mock, clientId, tokens.refresh_token!)).json()) as SiwcTokenReply;
    expect(bare.scope).toBeUndefined();
    expect(bare.id_token).toBeUndefined();
    mock.siwc.arm({ switch: "refresh_other_account" });
    const other = (await (await refreshSiwc(mock, clientId, bare.refresh_token!)).json()) as SiwcTokenReply;
    expect(decodeJwt(other.id_token!).sub).not.toBe(decodeJwt(tokens.id_token!).sub);
  });

  it("refresh_without_plan_usage: the refresh reply's scope and access token lack chatgpt.tokens.use.direct, and so does the grant from then on", async () => {
    const { clientId, tokens } = await signInSiwc(mock);
    mock.siwc.arm({ switch: "refresh_without_plan_usage" });
    const reduced = (await (await refreshSiwc(mock, clientId, tokens.refresh_token!)).json()) as SiwcTokenReply;
    expect(reduced.scope).toBe("email offline_access openid profile resource.invoke");
    expect(decodeJwt(reduced.access_token).scope).not.toContain("chatgpt.tokens.use.direct");
    expect((await postSiwcResponses(mock, reduced.access_token, siwcBody())).status).toBe(401);
    // The switch fired once, but the grant stays reduced.
    const next = (await (await refreshSiwc(mock, clientId, reduced.refresh_token!)).json()) as SiwcTokenReply;
    expect(next.scope).not.toContain("chatgpt.tokens.use.direct");
    expect(mock.siwc.snapshot().switches).toEqual([]);
  });

  it("earliest_refresh_at: epoch seconds, an ISO string or null; aud a string when set so", async () => {
    const seconds = await signInSiwc(mock);
    expect(seconds.tokens.earliest_refresh_at).toBeGreaterThan(Date.now() / 1000);
    mock.siwc.configure({ earliestRefreshAt: "iso", idTokenAud: "string" });
    const iso = await signInSiwc(mock);
    expect(iso.tokens.earliest_refresh_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(decodeJwt(iso.tokens.id_token!).aud).toBe(iso.clientId);
    mock.siwc.configure({ earliestRefreshAt: "null" });
    expect((await signInSiwc(mock)).tokens.earliest_refresh_at).toBeNull();
  });
});

describe("revoke switches", () => {
  it("revoke_server_error answers 503 and keeps the family", async () => {
    const { clientId, tokens } = await signInSiwc(mock);
    mock.siwc.arm({ switch: "revoke_server_error" });
    expect((await revokeSiwc(mock, clientId, tokens.refresh_token!)).status).toBe(503);
    expect(mock.siwc.snapshot().families[0]!.ended).toBeNull();
  });

  it("revoke_timeout never answers: the client's own deadline ends it", async () => {
    const { clientId, tokens } = await signInSiwc(mock);
    mock.siwc.arm({ switch: "revoke_timeout" });
    const started = fetch(`${mock.siwcIssuer}/api/accounts/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.refresh_token!, client_id: clientId }),
      signal: AbortSignal.timeout(300),
    });
    await expect(started).rejects.toThrow(/abort|timeout/i);
    expect(mock.siwc.snapshot().families[0]!.ended).toBeNull();
  });
});

it("a code exchange with a different client than the code's is invalid_grant", async () => {
  const a = await signInSiwc(mock);
  const attempt = newAttempt();
  const callback = await decide(authorizeUrl(mock, attempt), "approve");
  const reply = await exchangeCode(mock, attempt, a.clientId, callback.searchParams.get("code")!);
  expect(await reply.json()).toMatchObject({ error: "invalid_grant" });
});

describe("ID token switches", () => {
  it.each([
    ["id_token_bad_signature", /signature/i],
    ["id_token_wrong_issuer", /"iss"/],
    ["id_token_wrong_audience", /"aud"/],
    ["id_token_expired", /"exp"/],
  ] as const)("%s: the next ID token fails that check", async (name, failure) => {
    const jwks = createRemoteJWKSet(new URL(`${mock.siwcIssuer}/.well-known/jwks.json`));
    mock.siwc.arm({ switch: name });
    const { clientId, tokens } = await signInSiwc(mock);
    await expect(jwtVerify(tokens.id_token!, jwks, { issuer: mock.siwcIssuer, audience: clientId })).rejects.toThrow(failure);
    const next = (await (await refreshSiwc(mock, clientId, tokens.refresh_token!)).json()) as SiwcTokenReply;
    await expect(jwtVerify(next.id_token!, jwks, { issuer: mock.siwcIssuer, audience: clientId })).resolves.toBeDefined();
  });

  it("id_token_wrong_nonce: the nonce is not the one sent", async () => {
    mock.siwc.arm({ switch: "id_token_wrong_nonce" });
    const { tokens, attempt } = await signInSiwc(mock);
    expect(decodeJwt(tokens.id_token!).nonce).not.toBe(attempt.nonce);
  });
});
