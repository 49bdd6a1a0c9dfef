/**
 * Test support: the SIWC client side, over HTTP, against a running mock (a PKCE attempt, the
 * authorize page and its form, the code exchange, refresh, revoke, /v1 calls).
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { MockUpstream } from "../types";
import { OPENAI_RESOURCE } from "./context";
import { ALL_SCOPES, DYNAMIC_CLIENT_ID } from "./state";

interface SiwcAttempt {
  verifier: string;
  challenge: string;
  state: string;
  nonce: string;
  redirectUri: string;
  hostId: string;
}

export interface SiwcTokenReply {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  token_type: string;
  expires_in: number;
  scope?: string;
  earliest_refresh_at: unknown;
}

const TEST_HOST_ID = `urn:uuid:${randomUUID()}`;

export function newAttempt(port = 1455, hostId = TEST_HOST_ID): SiwcAttempt {
  const verifier = randomBytes(32).toString("base64url");
  return {
    verifier,
    challenge: createHash("sha256").update(verifier).digest("base64url"),
    state: randomBytes(16).toString("base64url"),
    nonce: randomBytes(16).toString("base64url"),
    redirectUri: `http://127.0.0.1:${port}/auth/callback`,
    hostId,
  };
}

/** The authorize URL a client builds; `clientId` undefined = a new registration. `params` overrides or (undefined) drops. */
export function authorizeUrl(
  mock: MockUpstream,
  attempt: SiwcAttempt,
  clientId?: string,
  params: Record<string, string | undefined> = {},
): string {
  const url = new URL(`${mock.siwcIssuer}/api/accounts/authorize`);
  const all: Record<string, string | undefined> = {
    client_id: clientId ?? DYNAMIC_CLIENT_ID,
    ...(clientId ? {} : { agent_name_hint: "Test App" }),
    ext_agent_host_id: attempt.hostId,
    response_type: "code",
    redirect_uri: attempt.redirectUri,
    scope: ALL_SCOPES.join(" "),
    resource: OPENAI_RESOURCE,
    state: attempt.state,
    nonce: attempt.nonce,
    code_challenge_method: "S256",
    code_challenge: attempt.challenge,
    ...params,
  };
  for (const [name, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/** Open the authorize page and submit its form; returns the 302's target (the callback URL). */
export async function decide(pageUrl: string, action: "approve" | "identity_only" | "decline", fields: Record<string, string> = {}): Promise<URL> {
  const page = await fetch(pageUrl);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`authorize page: ${page.status} ${html}`);
  const request = /name="request" value="([^"]+)"/.exec(html)?.[1];
  const formAction = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!request || !formAction) throw new Error("authorize page without its form");
  const reply = await fetch(new URL(formAction, pageUrl), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ request, action, ...fields }),
    redirect: "manual",
  });
  const location = reply.headers.get("location");
  if (reply.status !== 302 || !location) throw new Error(`decision: ${reply.status} ${await reply.text()}`);
  return new URL(location);
}

function postForm(url: string, fields: Record<string, string | undefined>): Promise<Response> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) body.set(name, value);
  return fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" }, body });
}

/** The form-encoded code exchange; `overrides` change or (undefined) drop fields. */
export function exchangeCode(
  mock: MockUpstream,
  attempt: SiwcAttempt,
  clientId: string,
  code: string,
  overrides: Record<string, string | undefined> = {},
): Promise<Response> {
  return postForm(`${mock.siwcIssuer}/api/accounts/oauth/token`, {
    grant_type: "authorization_code",
    client_id: clientId,
    code,
    code_verifier: attempt.verifier,
    redirect_uri: attempt.redirectUri,
    resource: OPENAI_RESOURCE,
    ...overrides,
  });
}

export function refreshSiwc(mock: MockUpstream, clientId: string, refreshToken: string): Promise<Response> {
  return postForm(`${mock.siwcIssuer}/api/accounts/oauth/token`, {
    grant_type: "refresh_token",
    client_id: clientId,
    refresh_token: refreshToken,
    resource: OPENAI_RESOURCE,
  });
}

export function revokeSiwc(mock: MockUpstream, clientId: string, token: string): Promise<Response> {
  return postForm(`${mock.siwcIssuer}/api/accounts/oauth/revoke`, { token, token_type_hint: "refresh_token", client_id: clientId });
}

interface SiwcSignIn {
  clientId: string;
  tokens: SiwcTokenReply;
  attempt: SiwcAttempt;
}

/** A whole first sign-in (new registration, approve, exchange); or a reauthorization with `clientId`. */
export async function signInSiwc(
  mock: MockUpstream,
  options: { clientId?: string; action?: "approve" | "identity_only"; fields?: Record<string, string>; params?: Record<string, string> } = {},
): Promise<SiwcSignIn> {
  const attempt = newAttempt();
  const callback = await decide(authorizeUrl(mock, attempt, options.clientId, options.params), options.action ?? "approve", options.fields);
  const clientId = callback.searchParams.get("client_id") ?? options.clientId;
  const code = callback.searchParams.get("code");
  if (!clientId || !code) throw new Error(`callback without client_id or code: ${callback.search}`);
  const reply = await exchangeCode(mock, attempt, clientId, code);
  if (reply.status !== 200) throw new Error(`exchange: ${reply.status} ${await reply.text()}`);
  return { clientId, tokens: (await reply.json()) as SiwcTokenReply, attempt };
}

export function siwcBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "gpt-5.5",
    instructions: "Be brief.",
    input: [{ role: "user", content: "hello there" }],
    store: false,
    stream: true,
    ...overrides,
  };
}

export function postSiwcResponses(mock: MockUpstream, accessToken: string, body: unknown): Promise<Response> {
  return fetch(`${mock.siwcApiBase}/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
  });
}

/** The JSON payloads of an SSE body (any framing: LF or CRLF, with or without event lines); `[DONE]` as the string. */
export function sseData(text: string): (Record<string, unknown> | "[DONE]")[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((frame) => frame.split(/\r?\n/).find((line) => line.startsWith("data: "))?.slice("data: ".length))
    .filter((data): data is string => data !== undefined)
    .map((data) => (data === "[DONE]" ? "[DONE]" : (JSON.parse(data) as Record<string, unknown>)));
}
