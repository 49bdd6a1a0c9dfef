/**
 * Test support: sign in against a running mock over HTTP, the way a client does
 * (usercode -> approve -> poll -> form-encoded code exchange). For tests that need tokens fast.
 */
import { MOCK_CLIENT_ID } from "./context";
import type { MockAccount, MockUpstream } from "./types";

export interface MockTokenSet {
  id_token: string;
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: string;
}

async function postJson(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

export async function signInThroughMock(mock: MockUpstream, account?: Partial<MockAccount>): Promise<MockTokenSet> {
  const codeReply = await postJson(`${mock.issuer}/api/accounts/deviceauth/usercode`, { client_id: MOCK_CLIENT_ID });
  if (!codeReply.ok) throw new Error(`usercode failed: ${codeReply.status}`);
  const device = (await codeReply.json()) as { device_auth_id: string; user_code: string };
  if (!mock.approve(device.user_code, account)) throw new Error("approve failed");
  const pollReply = await postJson(`${mock.issuer}/api/accounts/deviceauth/token`, {
    device_auth_id: device.device_auth_id,
    user_code: device.user_code,
  });
  if (!pollReply.ok) throw new Error(`poll failed: ${pollReply.status}`);
  return exchangeCodeWithMock(mock, (await pollReply.json()) as DeviceGrant);
}

export interface DeviceGrant {
  authorization_code: string;
  code_verifier: string;
}

/** The form-encoded authorization-code exchange, as a client sends it after an approved poll. */
export async function exchangeCodeWithMock(mock: MockUpstream, grant: DeviceGrant): Promise<MockTokenSet> {
  const tokenReply = await fetch(`${mock.issuer}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: grant.authorization_code,
      code_verifier: grant.code_verifier,
      client_id: MOCK_CLIENT_ID,
      redirect_uri: `${mock.issuer}/deviceauth/callback`,
    }),
  });
  if (!tokenReply.ok) throw new Error(`token exchange failed: ${tokenReply.status}`);
  return (await tokenReply.json()) as MockTokenSet;
}

/** Decode a JWT payload without checking it (tests only). */
export function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
}
