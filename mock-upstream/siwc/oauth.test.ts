import { createRemoteJWKSet, decodeJwt, jwtVerify } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "../server";
import {
  authorizeUrl,
  decide,
  exchangeCode,
  newAttempt,
  refreshSiwc,
  revokeSiwc,
  signInSiwc,
  type SiwcTokenReply,
} from "./test-flow";

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

describe("discovery and keys", () => {
  it("publishes the endpoints under the SIWC issuer, and an RS256 key with a kid", async () => {
    const reply = await fetch(`${mock.siwcIssuer}/.well-known/openid-configuration`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("x-request-id")).toMatch(/^req_/);
    const discovery = (await reply.json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({
      issuer: mock.siwcIssuer,
      authorization_endpoint: `${mock.siwcIssuer}/api/accounts/authorize`,
      token_endpoint: `${mock.siwcIssuer}/api/accounts/oauth/token`,
      jwks_uri: `${mock.siwcIssuer}/.well-known/jwks.json`,
      revocation_endpoint: `${mock.siwcIssuer}/api/accounts/oauth/revoke`,
      id_token_signing_alg_values_supported: ["RS256"],
    });
    const jwks = (await (await fetch(discovery.jwks_uri as string)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: "RSA", alg: "RS256", kid: expect.any(String) });
    expect(jwks.keys[0]).not.toHaveProperty("d");
  });
});

describe("authorize", () => {
  it("a new registration: approve mints an oaiapp_ client and redirects with code, state, client_id and scope", async () => {
    const attempt = newAttempt(54321);
    const callback = await decide(authorizeUrl(mock, attempt), "approve");
    expect(`${callback.origin}${callback.pathname}`).toBe("http://127.0.0.1:54321/auth/callback");
    expect(callback.searchParams.get("state")).toBe(attempt.state);
    expect(callback.searchParams.get("code")).toMatch(/.{20,}/);
    const clientId = callback.searchParams.get("client_id")!;
    expect(clientId).toMatch(/^oaiapp_[0-9a-f]+$/);
    expect(callback.searchParams.get("scope")!.split(" ")).toContain("chatgpt.tokens.use.direct");
    const registration = mock.siwc.snapshot().registrations[0]!;
    expect(registration).toMatchObject({ clientId, agentName: "Test App", hosts: [attempt.hostId], workspace: "personal" });
  });

  it("decline redirects with error=access_denied and the state, and no code", async () => {
    const attempt = newAttempt();
    const callback = await decide(authorizeUrl(mock, attempt), "decline");
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("state")).toBe(attempt.state);
    expect(callback.searchParams.has("code")).toBe(false);
    expect(mock.siwc.snapshot().authorizations[0]).toMatchObject({ outcome: "declined" });
  });

  it.each([
    ["localhost", { redirect_uri: "http://localhost:1455/auth/callback" }, "invalid_request"],
    ["another path", { redirect_uri: "http://127.0.0.1:1455/callback" }, "invalid_request"],
    ["https", { redirect_uri: "https://127.0.0.1:1455/auth/callback" }, "invalid_request"],
    ["no agent_name_hint", { agent_name_hint: undefined }, "invalid_request"],
    ["no host id", { ext_agent_host_id: undefined }, "invalid_request"],
    ["an email as host id", { ext_agent_host_id: "me@example.com" }, "invalid_request"],
    ["response_type token", { response_type: "token" }, "unsupported_response_type"],
    ["plain PKCE", { code_challenge_method: "plain" }, "invalid_request"],
    ["another resource", { resource: "https://example.com/v1" }, "invalid_target"],
    ["an unknown scope", { scope: "openid email api.connectors.read" }, "invalid_scope"],
    ["no openid", { scope: "email profile" }, "invalid_scope"],
    ["no state", { state: undefined }, "invalid_request"],
  ])("refuses %s with 400 before showing anything", async (_name, params, error) => {
    const reply = await fetch(authorizeUrl(mock, newAttempt(), undefined, params));
    expect(reply.status).toBe(400);
    expect(await reply.json()).toMatchObject({ error, error_description: expect.any(String) });
    expect(mock.siwc.snapshot().authorizations).toHaveLength(0);
  });

  it("refuses an unknown issued client_id", async () => {
    const reply = await fetch(authorizeUrl(mock, newAttempt(), "oaiapp_unknown"));
    expect(reply.status).toBe(400);
    expect(await reply.json()).toMatchObject({ error: "invalid_client" });
  });
});

describe("code exchange", () => {
  it("returns the token set; the ID token verifies against the JWKS with iss, aud, sub, email, name, nonce", async () => {
    const { clientId, tokens, attempt } = await signInSiwc(mock, { fields: { email: "ada@example.com", name: "Ada" } });
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600, refresh_token: expect.stringMatching(/^rt_/) });
    expect(tokens.scope).toBe("chatgpt.tokens.use.direct email offline_access openid profile resource.invoke");
    expect(tokens.earliest_refresh_at).toEqual(expect.any(Number));
    const jwks = createRemoteJWKSet(new URL(`${mock.siwcIssuer}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(tokens.id_token!, jwks, { issuer: mock.siwcIssuer, audience: clientId });
    expect(protectedHeader).toMatchObject({ alg: "RS256", kid: expect.any(String) });
    expect(payload).toMatchObject({ aud: [clientId], email: "ada@example.com", name: "Ada", nonce: attempt.nonce, sub: expect.stringMatching(/^user-/) });
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: "https://api.openai.com/v1", client_id: clientId, sub: payload.sub });
  });

  it("the code is single use; PKCE, redirect_uri, resource and the client are checked", async () => {
    const attempt = newAttempt();
    const callback = await decide(authorizeUrl(mock, attempt), "approve");
    const clientId = callback.searchParams.get("client_id")!;
    const code = callback.searchParams.get("code")!;
    const wrongVerifier = await exchangeCode(mock, attempt, clientId, code, { code_verifier: "x".repeat(43) });
    expect(wrongVerifier.status).toBe(400);
    expect(await wrongVerifier.json()).toMatchObject({ error: "invalid_grant" });
    // Spent by the failed try.
    expect((await (await exchangeCode(mock, attempt, clientId, code)).json()) as unknown).toMatchObject({ error: "invalid_grant" });

    for (const [overrides, error] of [
      [{ redirect_uri: "http://127.0.0.1:1456/auth/callback" }, "invalid_grant"],
      [{ resource: "https://example.com" }, "invalid_target"],
      [{ client_id: "dynamic_agent_client" }, "invalid_client"],
    ] as const) {
      const next = newAttempt();
      const cb = await decide(authorizeUrl(mock, next, clientId), "approve");
      const reply = await exchangeCode(mock, next, clientId, cb.searchParams.get("code")!, overrides);
      expect(await reply.json(), JSON.stringify(overrides)).toMatchObject({ error });
    }
  });

  it("refuses a JSON body, and an expired code", async () => {
    const attempt = newAttempt();
    const callback = await decide(authorizeUrl(mock, attempt), "approve");
    const json = await fetch(`${mock.siwcIssuer}/api/accounts/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "authorization_code" }),
    });
    expect(json.status).toBe(400);
    expect(json.headers.get("x-request-id")).toMatch(/^req_/);
    mock.siwc.advanceClock(61);
    const late = await exchangeCode(mock, attempt, callback.searchParams.get("client_id")!, callback.searchParams.get("code")!);
    expect(await late.json()).toMatchObject({ error: "invalid_grant", error_description: "The code has expired." });
  });

  it("identity only: no plan scopes, no refresh token", async () => {
    const { tokens } = await signInSiwc(mock, { action: "identity_only" });
    expect(tokens.scope).toBe("email openid profile");
    expect(tokens.refresh_token).toBeUndefined();
  });
});

describe("refresh and revoke", () => {
  it("rotates on every refresh; a reused token answers refresh_token_reused and kills the family", async () => {
    const { clientId, tokens } = await signInSiwc(mock);
    const first = await refreshSiwc(mock, clientId, tokens.refresh_token!);
    expect(first.status).toBe(200);
    const second = (await first.json()) as SiwcTokenReply;
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    expect(second).toMatchObject({ scope: tokens.scope, id_token: expect.any(String), expires_in: 3600 });
    const reused = await refreshSiwc(mock, clientId, tokens.refresh_token!);
    expect(reused.status).toBe(401);
    expect(await reused.json()).toMatchObject({ error: "refresh_token_reused" });
    const newest = await refreshSiwc(mock, clientId, second.refresh_token!);
    expect(await newest.json()).toMatchObject({ error: "refresh_token_invalidated" });
    expect(mock.siwc.snapshot().families[0]).toMatchObject({ ended: "reused", rotations: 1 });
  });

  it("a refresh token lives 30 days (by the mock's clock)", async () => {
    const { clientId, tokens } = await signInSiwc(mock);
    mock.siwc.advanceClock(30 * 24 * 3600 + 1);
    expect(await (await refreshSiwc(mock, clientId, tokens.refresh_token!)).json()).toMatchObject({ error: "refresh_token_expired" });
  });

  it("revoke answers an empty 200 (also for unknown tokens) and kills the family", async () => {
    const { clientId, tokens } = await signInSiwc(mock);
    const reply = await revokeSiwc(mock, clientId, tokens.refresh_token!);
    expect(reply.status).toBe(200);
    expect(await reply.text()).toBe("");
    expect(reply.headers.get("x-request-id")).toMatch(/^req_/);
    expect(mock.siwc.snapshot().families[0]).toMatchObject({ ended: "revoked" });
    expect(await (await refreshSiwc(mock, clientId, tokens.refresh_token!)).json()).toMatchObject({ error: "refresh_token_invalidated" });
    expect((await revokeSiwc(mock, clientId, "rt_unknown")).status).toBe(200);
  });

  it("a returning client reauthorizes with its issued id: no new registration, the id echoed, same sub", async () => {
    const first = await signInSiwc(mock);
    const again = await signInSiwc(mock, { clientId: first.clientId });
    expect(again.clientId).toBe(first.clientId);
    expect(mock.siwc.snapshot().registrations).toHaveLength(1);
    expect(decodeJwt(again.tokens.id_token!).sub).toBe(decodeJwt(first.tokens.id_token!).sub);
    expect(mock.siwc.snapshot().authorizations[1]).toMatchObject({ newRegistration: false, consentShown: false, callbackClientId: first.clientId });
  });

  it("a valid id_token_hint (even expired) skips the account selector: the authorize GET redirects at once", async () => {
    const first = await signInSiwc(mock);
    mock.siwc.advanceClock(7200);
    const attempt = newAttempt();
    const reply = await fetch(authorizeUrl(mock, attempt, first.clientId, { id_token_hint: first.tokens.id_token }), { redirect: "manual" });
    expect(reply.status).toBe(302);
    const callback = new URL(reply.headers.get("location")!);
    expect(callback.searchParams.get("state")).toBe(attempt.state);
    const exchanged = await exchangeCode(mock, attempt, first.clientId, callback.searchParams.get("code")!);
    expect(exchanged.status).toBe(200);
    expect(mock.siwc.snapshot().authorizations[1]).toMatchObject({ idTokenHint: true, pageShown: false, consentShown: false });

    // Another client's ID token is no hint for this one; with prompt=consent the page shows anyway.
    const other = await signInSiwc(mock);
    const foreign = await fetch(authorizeUrl(mock, newAttempt(), first.clientId, { id_token_hint: other.tokens.id_token }), { redirect: "manual" });
    expect(foreign.status).toBe(200);
    const consent = await fetch(authorizeUrl(mock, newAttempt(), first.clientId, { id_token_hint: first.tokens.id_token, prompt: "consent" }), { redirect: "manual" });
    expect(consent.status).toBe(200);
  });
});
