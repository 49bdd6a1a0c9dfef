import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MOCK_CLIENT_ID, startMockUpstream, type MockUpstream } from "./server";
import { jwtPayload } from "./sign-in";
import { postJson } from "./test-utils";

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

async function requestCode(): Promise<{ device_auth_id: string; user_code: string; interval: string }> {
  const reply = await postJson(`${mock.issuer}/api/accounts/deviceauth/usercode`, { client_id: MOCK_CLIENT_ID });
  expect(reply.status).toBe(200);
  return (await reply.json()) as { device_auth_id: string; user_code: string; interval: string };
}

function poll(device: { device_auth_id: string; user_code: string }) {
  return postJson(`${mock.issuer}/api/accounts/deviceauth/token`, device);
}

function exchange(fields: Record<string, string>, contentType = "application/x-www-form-urlencoded") {
  const body = contentType === "application/json" ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
  return fetch(`${mock.issuer}/oauth/token`, { method: "POST", headers: { "content-type": contentType }, body });
}

function exchangeFields(grant: { authorization_code: string; code_verifier: string }): Record<string, string> {
  return {
    grant_type: "authorization_code",
    code: grant.authorization_code,
    code_verifier: grant.code_verifier,
    client_id: MOCK_CLIENT_ID,
    redirect_uri: `${mock.issuer}/deviceauth/callback`,
  };
}

async function submitApprovalForm(fields: Record<string, string>): Promise<{ status: number; html: string }> {
  const reply = await fetch(`${mock.url}/codex/device/decision`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: reply.status, html: await reply.text() };
}

describe("device code", () => {
  it("issues a code with the upstream shape: ABCD-1234 user code and a string interval", async () => {
    const device = await requestCode();
    expect(device.device_auth_id).toMatch(/^deviceauth_[0-9a-f]{32}$/);
    expect(device.user_code).toMatch(/^[A-Z]{4}-\d{4}$/);
    expect(device.interval).toBe("5");
    expect(Object.keys(device).sort()).toEqual(["device_auth_id", "interval", "user_code"]);
  });

  it("announces the configured poll interval as a string", async () => {
    mock.setOptions({ pollIntervalSeconds: 2 });
    expect((await requestCode()).interval).toBe("2");
  });

  it("rejects a missing or wrong client_id, and a non-JSON body", async () => {
    const url = `${mock.issuer}/api/accounts/deviceauth/usercode`;
    expect((await postJson(url, {})).status).toBe(400);
    expect((await postJson(url, { client_id: "app_someone_else" })).status).toBe(400);
    const form = await fetch(url, { method: "POST", body: new URLSearchParams({ client_id: MOCK_CLIENT_ID }) });
    expect(form.status).toBe(400);
  });
});

describe("polling", () => {
  it("answers 403 deviceauth_authorization_pending until approved, 404 for unknown ids", async () => {
    const device = await requestCode();
    const pending = await poll(device);
    expect(pending.status).toBe(403);
    expect(await pending.json()).toEqual({ error: expect.objectContaining({ code: "deviceauth_authorization_pending" }) });
    const unknown = await poll({ device_auth_id: "deviceauth_nope", user_code: device.user_code });
    expect(unknown.status).toBe(404);
    const wrongCode = await poll({ device_auth_id: device.device_auth_id, user_code: "ZZZZ-0000" });
    expect(wrongCode.status).toBe(404);
  });

  it("hands out a real PKCE pair once approved, the same on repeated polls", async () => {
    const device = await requestCode();
    expect(mock.approve(device.user_code)).toBe(true);
    const first = await poll(device);
    expect(first.status).toBe(200);
    const grant = (await first.json()) as Record<string, string>;
    expect(Object.keys(grant).sort()).toEqual(["authorization_code", "code_challenge", "code_verifier"]);
    expect(grant.code_challenge).toBe(createHash("sha256").update(grant.code_verifier!).digest("base64url"));
    expect(grant.code_verifier!.length).toBeGreaterThanOrEqual(43);
    expect(await (await poll(device)).json()).toEqual(grant);
  });

  it("answers a denied code with 400 access_denied", async () => {
    const device = await requestCode();
    expect(mock.deny(device.user_code)).toBe(true);
    const reply = await poll(device);
    expect(reply.status).toBe(400);
    expect(await reply.json()).toEqual({ error: { code: "access_denied", message: "The user denied the request" } });
    expect(mock.approve(device.user_code)).toBe(false);
  });

  it("answers an expired code with 400 expired_token (expire())", async () => {
    const device = await requestCode();
    expect(mock.expire(device.user_code)).toBe(true);
    const reply = await poll(device);
    expect(reply.status).toBe(400);
    expect(await reply.json()).toEqual({ error: { code: "expired_token", message: "The device code has expired" } });
    expect(mock.approve(device.user_code)).toBe(false);
    expect(mock.expire("ZZZZ-0000")).toBe(false);
  });

  it("expires codes after deviceCodeTtlSeconds", async () => {
    mock.setOptions({ deviceCodeTtlSeconds: 0.3 });
    const device = await requestCode();
    let status = 0;
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      status = (await poll(device)).status;
      if (status !== 403) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(400);
    expect(mock.approve(device.user_code)).toBe(false);
  });

  it("can answer 429 slow_down when asked to enforce the interval", async () => {
    mock.setOptions({ enforcePollInterval: true, pollIntervalSeconds: 5 });
    const device = await requestCode();
    expect((await poll(device)).status).toBe(403);
    const tooFast = await poll(device);
    expect(tooFast.status).toBe(429);
    expect(await tooFast.json()).toEqual({ error: expect.objectContaining({ code: "slow_down" }) });
  });
});

describe("code exchange", () => {
  async function approvedGrant(account?: Parameters<MockUpstream["approve"]>[1]) {
    const device = await requestCode();
    mock.approve(device.user_code, account);
    return (await (await poll(device)).json()) as { authorization_code: string; code_verifier: string };
  }

  it("returns id, access and refresh tokens with the provider's claim layout", async () => {
    const grant = await approvedGrant();
    const reply = await exchange(exchangeFields(grant));
    expect(reply.status).toBe(200);
    const tokens = (await reply.json()) as Record<string, unknown>;
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    const id = jwtPayload(tokens.id_token as string);
    expect(id).toMatchObject({
      email: "demo@example.com",
      iss: mock.issuer,
      aud: [MOCK_CLIENT_ID],
      "https://api.openai.com/auth": {
        chatgpt_account_id: "acct_demo",
        chatgpt_plan_type: "plus",
        chatgpt_user_id: "user_demo",
      },
    });
    expect(typeof id.exp).toBe("number");
    expect(typeof id.iat).toBe("number");
    const access = jwtPayload(tokens.access_token as string);
    expect(access["https://api.openai.com/auth"]).toMatchObject({ chatgpt_account_id: "acct_demo" });
    expect((access.exp as number) - (access.iat as number)).toBe(3600);
    expect(JSON.parse(Buffer.from((tokens.access_token as string).split(".")[0]!, "base64url").toString())).toMatchObject({
      alg: "HS256",
    });
    expect(typeof tokens.refresh_token).toBe("string");
  });

  it("uses the approved account (explicit, or derived from another email)", async () => {
    const explicit = await approvedGrant({ accountId: "acct_team", plan: "team", email: "t@example.com" });
    const tokens = (await (await exchange(exchangeFields(explicit))).json()) as { id_token: string };
    expect(jwtPayload(tokens.id_token)).toMatchObject({
      email: "t@example.com",
      "https://api.openai.com/auth": { chatgpt_account_id: "acct_team", chatgpt_plan_type: "team" },
    });
    const derived = await approvedGrant({ email: "alice@example.com" });
    const other = (await (await exchange(exchangeFields(derived))).json()) as { id_token: string };
    const claim = jwtPayload(other.id_token)["https://api.openai.com/auth"] as Record<string, string>;
    expect(claim.chatgpt_account_id).toMatch(/^acct_[0-9a-f]{12}$/);
    expect(claim.chatgpt_account_id).not.toBe("acct_demo");
  });

  it("checks the PKCE verifier against the challenge", async () => {
    const grant = await approvedGrant();
    const wrong = await exchange({ ...exchangeFields(grant), code_verifier: "x".repeat(64) });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("makes authorization codes single-use", async () => {
    const grant = await approvedGrant();
    expect((await exchange(exchangeFields(grant))).status).toBe(200);
    const again = await exchange(exchangeFields(grant));
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("requires the exact redirect_uri, the client id, and a form-encoded body", async () => {
    const grant = await approvedGrant();
    const fields = exchangeFields(grant);
    expect((await exchange({ ...fields, redirect_uri: `${mock.issuer}/callback` })).status).toBe(400);
    expect((await exchange({ ...fields, client_id: "app_other" })).status).toBe(401);
    expect((await exchange(fields, "application/json")).status).toBe(400);
    // None of the failures consumed the code.
    expect((await exchange(fields)).status).toBe(200);
  });

  it("rejects unknown grant types", async () => {
    const reply = await exchange({ grant_type: "password", client_id: MOCK_CLIENT_ID });
    expect(reply.status).toBe(400);
    expect(await reply.json()).toMatchObject({ error: "unsupported_grant_type" });
  });
});

describe("approval page", () => {
  it("serves an accessible form with the agreed test ids, prefilled from ?user_code=", async () => {
    const reply = await fetch(`${mock.verificationUrl}?user_code=ABCD-1234`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toContain("text/html");
    const html = await reply.text();
    for (const testId of ["mock-user-code", "mock-email", "mock-approve", "mock-deny", "mock-result"]) {
      expect(html).toContain(`data-testid="${testId}"`);
    }
    expect(html).toMatch(/<html lang="en">/);
    expect(html).toMatch(/<label for="user_code">/);
    expect(html).toMatch(/id="user_code"[^>]*value="ABCD-1234"/);
  });

  it("without ?user_code= it fills in the newest code still waiting for approval, as the link the app shows carries none", async () => {
    const prefilled = async () => /id="user_code"[^>]*value="([^"]*)"/.exec(await (await fetch(mock.verificationUrl)).text())?.[1];
    expect(await prefilled()).toBe("");
    const older = await requestCode();
    const newer = await requestCode();
    expect(await prefilled()).toBe(newer.user_code);
    mock.approve(newer.user_code);
    expect(await prefilled()).toBe(older.user_code);
    mock.deny(older.user_code);
    expect(await prefilled()).toBe("");
    const expired = await requestCode();
    mock.expire(expired.user_code);
    expect(await prefilled()).toBe("");
    // A code in the link still wins.
    const waiting = await requestCode();
    expect(waiting.user_code).not.toBe("ABCD-1234");
    expect(/id="user_code"[^>]*value="([^"]*)"/.exec(await (await fetch(`${mock.verificationUrl}?user_code=ABCD-1234`)).text())?.[1]).toBe("ABCD-1234");
  });

  it("escapes the prefilled code", async () => {
    const html = await (await fetch(`${mock.verificationUrl}?user_code=${encodeURIComponent('"><script>x</script>')}`)).text();
    expect(html).not.toContain("<script>x</script>");
    expect(html).toContain("&quot;&gt;&lt;script&gt;");
  });

  it("approves through the form (code without dash, lower case) and the client then signs in", async () => {
    const device = await requestCode();
    const loose = device.user_code.replace("-", "").toLowerCase();
    const page = await submitApprovalForm({ user_code: loose, email: "bob@example.com", action: "approve" });
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/data-testid="mock-result"[^>]*>Approved — you can return to the app</);
    const grant = (await (await poll(device)).json()) as { authorization_code: string; code_verifier: string };
    const tokens = (await (await exchange(exchangeFields(grant))).json()) as { id_token: string };
    expect(jwtPayload(tokens.id_token).email).toBe("bob@example.com");
    const recorded = mock.requests({ path: "/codex/device/decision" });
    expect(recorded[0]?.body).toMatchObject({ user_code: loose, action: "approve" });
  });

  it("denies through the form", async () => {
    const device = await requestCode();
    const page = await submitApprovalForm({ user_code: device.user_code, action: "deny" });
    expect(page.html).toMatch(/data-testid="mock-result"[^>]*>Denied</);
    expect((await poll(device)).status).toBe(400);
  });

  it("says so for an unknown or expired code", async () => {
    const page = await submitApprovalForm({ user_code: "ZZZZ-9999", action: "approve" });
    expect(page.status).toBe(404);
    expect(page.html).toMatch(/data-testid="mock-result"[^>]*>Unknown or expired code</);
    const device = await requestCode();
    mock.expire(device.user_code);
    const expired = await submitApprovalForm({ user_code: device.user_code, action: "approve" });
    expect(expired.html).toContain("Unknown or expired code");
  });

  it("takes a plan from the form", async () => {
    const device = await requestCode();
    await submitApprovalForm({ user_code: device.user_code, plan: "free", action: "approve" });
    const grant = (await (await poll(device)).json()) as { authorization_code: string; code_verifier: string };
    const tokens = (await (await exchange(exchangeFields(grant))).json()) as { access_token: string };
    expect(jwtPayload(tokens.access_token)["https://api.openai.com/auth"]).toMatchObject({ chatgpt_plan_type: "free" });
  });
});
