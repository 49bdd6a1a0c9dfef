import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MOCK_CLIENT_ID, startMockUpstream, type MockUpstream } from "./server";
import { jwtPayload, signInThroughMock } from "./sign-in";
import { getModels, postJson, refresh } from "./test-utils";

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

describe("refresh", () => {
  it("rotates all three tokens", async () => {
    const first = await signInThroughMock(mock);
    const reply = await refresh(mock, first.refresh_token);
    expect(reply.status).toBe(200);
    const second = (await reply.json()) as typeof first;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.id_token).not.toBe(first.id_token);
    expect(jwtPayload(second.id_token)).toMatchObject({ email: "demo@example.com" });
    expect((await getModels(mock, second)).status).toBe(200);
    // The new refresh token works in turn.
    expect((await refresh(mock, second.refresh_token)).status).toBe(200);
  });

  it("detects reuse: 401 refresh_token_reused, and the whole family dies", async () => {
    const first = await signInThroughMock(mock);
    const second = (await (await refresh(mock, first.refresh_token)).json()) as typeof first;
    const replay = await refresh(mock, first.refresh_token);
    expect(replay.status).toBe(401);
    expect(await replay.json()).toEqual({ error: expect.objectContaining({ code: "refresh_token_reused", message: expect.any(String) }) });
    const newest = await refresh(mock, second.refresh_token);
    expect(newest.status).toBe(401);
    expect(await newest.json()).toEqual({ error: expect.objectContaining({ code: "refresh_token_invalidated" }) });
  });

  it("keeps other logins alive when one family dies", async () => {
    const victim = await signInThroughMock(mock);
    const bystander = await signInThroughMock(mock);
    await refresh(mock, victim.refresh_token);
    await refresh(mock, victim.refresh_token);
    expect((await refresh(mock, bystander.refresh_token)).status).toBe(200);
  });

  it("rejects unknown tokens with 401, a form-encoded refresh with 400, a wrong client with 401", async () => {
    const unknown = await refresh(mock, "rt_unknown");
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ error: expect.objectContaining({ code: "refresh_token_invalidated" }) });
    const tokens = await signInThroughMock(mock);
    const form = await fetch(`${mock.issuer}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: MOCK_CLIENT_ID, grant_type: "refresh_token", refresh_token: tokens.refresh_token }),
    });
    expect(form.status).toBe(400);
    const wrongClient = await postJson(`${mock.issuer}/oauth/token`, {
      client_id: "app_other",
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
    });
    expect(wrongClient.status).toBe(401);
    // The rejected attempts did not use the token up.
    expect((await refresh(mock, tokens.refresh_token)).status).toBe(200);
  });

  it("counts refresh calls in the recorder", async () => {
    const tokens = await signInThroughMock(mock);
    await refresh(mock, tokens.refresh_token);
    const refreshes = mock.requests({ path: "/oauth/token" }).filter((r) => (r.body as { grant_type?: string }).grant_type === "refresh_token");
    expect(refreshes).toHaveLength(1);
    expect(mock.requests({ path: "/oauth/token" })).toHaveLength(2);
  });
});

describe("revoke", () => {
  it("revokes the family of a refresh token", async () => {
    const tokens = await signInThroughMock(mock);
    const reply = await postJson(`${mock.issuer}/oauth/revoke`, {
      token: tokens.refresh_token,
      token_type_hint: "refresh_token",
      client_id: MOCK_CLIENT_ID,
    });
    expect(reply.status).toBe(200);
    const after = await refresh(mock, tokens.refresh_token);
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({ error: expect.objectContaining({ code: "refresh_token_invalidated" }) });
  });

  it("answers 200 for unknown tokens and 400 for a bad request", async () => {
    expect((await postJson(`${mock.issuer}/oauth/revoke`, { token: "nope", client_id: MOCK_CLIENT_ID })).status).toBe(200);
    expect((await postJson(`${mock.issuer}/oauth/revoke`, { client_id: MOCK_CLIENT_ID })).status).toBe(400);
  });
});

describe("access tokens", () => {
  it("carry exp = now + accessTokenTtlSeconds", async () => {
    mock.setOptions({ accessTokenTtlSeconds: 120 });
    const tokens = await signInThroughMock(mock);
    const payload = jwtPayload(tokens.access_token);
    expect((payload.exp as number) - (payload.iat as number)).toBe(120);
    expect(tokens.expires_in).toBe(120);
  });

  it("stop working at expiry (401 token_expired), and a refresh brings a working one", async () => {
    mock.setOptions({ accessTokenTtlSeconds: 1 });
    const tokens = await signInThroughMock(mock);
    let status = 200;
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && status === 200) {
      status = (await getModels(mock, tokens)).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(401);
    const body = (await (await getModels(mock, tokens)).json()) as { error: { code: string } };
    expect(body.error.code).toBe("token_expired");
    mock.setOptions({ accessTokenTtlSeconds: 3600 });
    const fresh = (await (await refresh(mock, tokens.refresh_token)).json()) as typeof tokens;
    expect((await getModels(mock, fresh)).status).toBe(200);
  });

  it("are rejected when forged, missing, or for another account", async () => {
    const tokens = await signInThroughMock(mock);
    const [header, payload] = tokens.access_token.split(".");
    const forged = { ...tokens, access_token: `${header}.${payload}.AAAA` };
    expect((await getModels(mock, forged)).status).toBe(401);
    const missing = await fetch(`${mock.codexBaseUrl}/models?client_version=0.169.0`, { headers: { "chatgpt-account-id": "acct_demo" } });
    expect(missing.status).toBe(401);
    expect((await getModels(mock, tokens, "?client_version=0.169.0", "acct_other")).status).toBe(403);
    const noAccount = await fetch(`${mock.codexBaseUrl}/models?client_version=0.169.0`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(noAccount.status).toBe(400);
  });
});
