import { backendHeaders } from "../../lib/upstream/backend";
import { exchangeAuthorizationCode, pollDeviceAuthorization, requestDeviceCode } from "../../lib/upstream/device-flow";
import { readAccountInfo } from "../../lib/upstream/jwt";
import { resolveUpstreamConfig } from "../../lib/upstream/config";
import { normalizeResponsesBody } from "../../lib/upstream/responses";
import type { BackendAuth } from "../../lib/upstream/types";
import { mockControl } from "./mock-process";

export const API = "/api/provider";

/** A /responses body as the AI SDK's streamText sends it (before the proxy normalises it). */
export function requestBody(text: string) {
  return { model: "gpt-5.5", stream: true, instructions: "Answer.", input: [{ role: "user", content: [{ type: "input_text", text }] }] };
}

/** The request the proxy would send the backend for `text`: normalised body, the account's headers. */
export function directInit(mockUrl: string, auth: BackendAuth, text: string): RequestInit {
  const config = resolveUpstreamConfig({ issuer: mockUrl, codexBaseUrl: `${mockUrl}/backend-api/codex` });
  const headers = backendHeaders(config, auth, { "content-type": "application/json", accept: "text/event-stream" });
  return { method: "POST", headers, body: JSON.stringify(normalizeResponsesBody(requestBody(text))) };
}

/** Signs in through the app the contract's way (cookie alone); returns the session cookie. */
export async function signInThroughApp(appUrl: string, mockUrl: string): Promise<string> {
  const login = await fetch(`${appUrl}${API}/login`, { method: "POST" });
  const cookie = (login.headers.getSetCookie()[0] ?? "").split(";")[0]!;
  const { userCode } = (await login.json()) as { userCode: string };
  // A login started without the x-lwc-login-nonce header is polled with the cookie alone (the contract).
  await mockControl(mockUrl, "/__mock/approve", { userCode, account: { accountId: "acct_bench", email: "bench@example.com" } });
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const status = await fetch(`${appUrl}${API}/status`, { headers: { cookie } });
    const rotated = status.headers.getSetCookie()[0]?.split(";")[0];
    const body = (await status.json()) as { status: string };
    if (body.status === "authenticated") return rotated ?? cookie;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("sign-in through the app did not complete");
}

/** Signs in against the mock directly, as a client without the proxy would. */
export async function signInDirectly(mockUrl: string): Promise<BackendAuth> {
  const config = resolveUpstreamConfig({ issuer: mockUrl, codexBaseUrl: `${mockUrl}/backend-api/codex` });
  const device = await requestDeviceCode(config);
  await mockControl(mockUrl, "/__mock/approve", { userCode: device.userCode, account: { accountId: "acct_bench_direct", email: "direct@example.com" } });
  const poll = await pollDeviceAuthorization(config, device);
  if (poll.status !== "approved") throw new Error("direct sign-in was not approved");
  const tokens = await exchangeAuthorizationCode(config, poll);
  return { accessToken: tokens.accessToken, accountId: readAccountInfo(tokens).accountId };
}
