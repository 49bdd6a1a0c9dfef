import "server-only";
import { z } from "zod";
import { ProviderAuthError } from "@/lib/upstream/errors";
import { fetchUpstreamText, parseJsonOrUndefined } from "@/lib/upstream/http";
import { upstreamSnippet } from "@/lib/upstream/redact";
import { computeExpiresAt } from "@/lib/upstream/tokens";
import type { UpstreamConfig } from "@/lib/upstream/types";

/** The scope that grants ChatGPT plan usage. Only the token response's `scope` decides. */
export const PLAN_USAGE_SCOPE = "chatgpt.tokens.use.direct";

/**
 * Refresh error codes that mean the grant is over (spec §9): the tokens are cleared and the
 * person signs in again. `invalid_client` is a configuration problem and clears nothing.
 */
const TERMINAL_REFRESH_CODES = new Set([
  "invalid_grant",
  "invalid_refresh_token",
  "token_expired",
  "refresh_token_expired",
  "refresh_token_invalidated",
  "refresh_token_reused",
]);

/** What a token reply carried, checked. Times are epoch ms. */
export interface GrantedTokens {
  accessToken: string;
  refreshToken?: string;
  idToken?: string;
  expiresAt: number;
  /** Undefined when the reply had no `scope` (a refresh then keeps the previous scopes). */
  scopes?: string[];
}

/** One token-endpoint failure: the codes found in its body and its status (none: network). */
interface TokenEndpointFailure {
  status?: number;
  codes: string[];
  /** A bounded snippet of the body for the log line (tokens removed). */
  body?: string;
}

const replySchema = z.object({
  access_token: z.string().min(1).optional(),
  refresh_token: z.string().min(1).optional(),
  id_token: z.string().min(1).optional(),
  token_type: z.string().optional(),
  expires_in: z.coerce.number().positive().optional().catch(undefined),
  scope: z.string().optional().catch(undefined),
  // Its meaning, unit and type are unknown (epoch seconds, ms, an ISO string, null): read, never trusted.
  earliest_refresh_at: z.unknown().optional(),
});

/** Every code-like value of an error body: `error` (string or `{code}`), `code`, `detail.code`, nested up to 4 levels. */
function errorCodes(value: unknown, depth = 0): string[] {
  if (typeof value === "string") return depth === 0 ? [] : [value];
  if (typeof value !== "object" || value === null || Array.isArray(value) || depth >= 4) return [];
  const record = value as Record<string, unknown>;
  return ["error", "code", "detail"].flatMap((field) => errorCodes(record[field], depth + 1));
}

export class TokenEndpointError extends Error {
  constructor(readonly failure: TokenEndpointFailure, what: string) {
    super(`${what} failed (${failure.status ?? "network"}${failure.codes.length ? `: ${failure.codes.join(", ")}` : ""})`);
    this.name = "TokenEndpointError";
  }
}

/** A form POST to a token or revocation endpoint; redirects are never followed. */
async function postForm(upstream: UpstreamConfig, url: string, form: Record<string, string>, what: string, signal?: AbortSignal) {
  return fetchUpstreamText(
    upstream,
    url,
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams(form).toString(),
    },
    what,
    signal ? { signal } : {},
  );
}

async function tokenCall(upstream: UpstreamConfig, url: string, form: Record<string, string>, what: string, now: number, signal?: AbortSignal): Promise<GrantedTokens> {
  let reply;
  try {
    reply = await postForm(upstream, url, form, what, signal);
  } catch (error) {
    if (error instanceof ProviderAuthError) throw new TokenEndpointError({ codes: [] }, what);
    throw error;
  }
  if (!reply.ok) {
    const codes = errorCodes(parseJsonOrUndefined(reply.text) ?? {});
    const body = upstreamSnippet(reply.text, { maxChars: 200 });
    throw new TokenEndpointError({ status: reply.status, codes, ...(body !== undefined ? { body } : {}) }, what);
  }
  // A 2xx body holds tokens: never copied into an error or a log line.
  const parsed = replySchema.safeParse(parseJsonOrUndefined(reply.text));
  if (!parsed.success) throw new TokenEndpointError({ status: reply.status, codes: ["malformed_reply"] }, what);
  const data = parsed.data;
  if (data.access_token !== undefined && data.token_type !== undefined && data.token_type.toLowerCase() !== "bearer") {
    throw new TokenEndpointError({ status: reply.status, codes: ["unexpected_token_type"] }, what);
  }
  const granted: GrantedTokens = {
    accessToken: data.access_token ?? "",
    expiresAt: data.access_token ? computeExpiresAt(data.access_token, data.expires_in, now) : now,
  };
  if (data.refresh_token !== undefined) granted.refreshToken = data.refresh_token;
  if (data.id_token !== undefined) granted.idToken = data.id_token;
  if (data.scope !== undefined) granted.scopes = data.scope.split(/\s+/).filter((scope) => scope !== "");
  return granted;
}

/** The authorization-code exchange: form-encoded, no client authentication, with `resource`. */
export function exchangeCode(
  upstream: UpstreamConfig,
  tokenUrl: string,
  input: { clientId: string; code: string; verifier: string; redirectUri: string; resource: string },
  now: number,
): Promise<GrantedTokens> {
  return tokenCall(
    upstream,
    tokenUrl,
    {
      grant_type: "authorization_code",
      client_id: input.clientId,
      code: input.code,
      code_verifier: input.verifier,
      redirect_uri: input.redirectUri,
      resource: input.resource,
    },
    "SIWC code exchange",
    now,
  );
}

/**
 * The refresh grant: form-encoded with `resource` and no `scope` (the grant stays as it is).
 * Throws `ProviderAuthError`: `refresh_token_invalid` for the terminal codes (the login ends),
 * `token_refresh_failed` for anything else with a reply (invalid_client, 5xx, …; nothing cleared),
 * `network_error` when the endpoint could not be reached.
 */
export async function refreshGrant(
  upstream: UpstreamConfig,
  tokenUrl: string,
  input: { clientId: string; refreshToken: string; resource: string },
  now: number,
  signal?: AbortSignal,
): Promise<GrantedTokens> {
  try {
    return await tokenCall(
      upstream,
      tokenUrl,
      { grant_type: "refresh_token", client_id: input.clientId, refresh_token: input.refreshToken, resource: input.resource },
      "SIWC token refresh",
      now,
      signal,
    );
  } catch (error) {
    if (!(error instanceof TokenEndpointError)) throw error;
    const { status, codes, body } = error.failure;
    const details = { ...(status !== undefined ? { status } : {}), body: body ?? null };
    if (status === undefined) throw new ProviderAuthError("network_error", "Token refresh failed: the provider could not be reached.", details);
    if (codes.some((code) => TERMINAL_REFRESH_CODES.has(code))) {
      throw new ProviderAuthError("refresh_token_invalid", `The sign-in is no longer valid (${status})`, details);
    }
    throw new ProviderAuthError("token_refresh_failed", `Token refresh failed (${status})`, details);
  }
}

/** Revocation tries, their spacing and each one's longest deadline (spec §5). */
const REVOKE_ATTEMPTS = 2;
const REVOKE_PAUSE_MS = 300;
const REVOKE_TIMEOUT_MS = 10_000;

/**
 * Revokes a refresh token: form-encoded, two tries (or `attempts`) 300 ms apart, each cut at 10 s
 * (or the upstream request timeout when shorter). Only an HTTP 200 confirms it. Never throws.
 */
export async function revokeRefreshToken(
  upstream: UpstreamConfig,
  revocationUrl: string,
  input: { clientId: string; refreshToken: string },
  attempts = REVOKE_ATTEMPTS,
): Promise<boolean> {
  const form = { token: input.refreshToken, token_type_hint: "refresh_token", client_id: input.clientId };
  const config = { ...upstream, requestTimeoutMs: Math.min(REVOKE_TIMEOUT_MS, upstream.requestTimeoutMs) };
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, REVOKE_PAUSE_MS));
    try {
      if ((await postForm(config, revocationUrl, form, "SIWC token revocation")).status === 200) return true;
    } catch {
      // Unreachable or too slow: the next try, then "unconfirmed".
    }
  }
  return false;
}
