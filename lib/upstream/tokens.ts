import "server-only";
import { z } from "zod";
import { readUpstreamErrorBody, summarizeUpstreamError } from "./error-body";
import { ProviderAuthError } from "./errors";
import { fetchUpstreamText, parseJsonOrUndefined, type UpstreamCallOptions } from "./http";
import { upstreamSnippet } from "./redact";
import { readJwtExpiry } from "./jwt";
import type { TokenSet, UpstreamConfig } from "./types";

/** Refresh proactively when the access token expires within this window (what Codex does). */
export const REFRESH_THRESHOLD_MS = 5 * 60_000;
/** Assumed access-token lifetime when neither the JWT `exp` nor `expires_in` says. */
export const FALLBACK_ACCESS_TOKEN_LIFETIME_MS = 60 * 60_000;

/** Error codes that mean the refresh token is dead and the login is over. */
const DEAD_REFRESH_TOKEN_CODES = new Set(["refresh_token_expired", "refresh_token_reused", "refresh_token_invalidated"]);

export function tokenEndpoint(config: UpstreamConfig): string {
  return `${config.issuer}/oauth/token`;
}

export function identityHeaders(config: UpstreamConfig, contentType: string): Headers {
  return new Headers({
    "Content-Type": contentType,
    Accept: "application/json",
    originator: config.originator,
    "User-Agent": config.userAgent,
  });
}

/** Access-token expiry: its JWT `exp`, else now + `expires_in`, else now + 1 hour. */
export function computeExpiresAt(accessToken: string, expiresInSeconds: number | undefined, now = Date.now()): number {
  const fromJwt = readJwtExpiry(accessToken);
  if (fromJwt !== null) return fromJwt;
  if (expiresInSeconds !== undefined && Number.isFinite(expiresInSeconds) && expiresInSeconds > 0) {
    return now + expiresInSeconds * 1000;
  }
  return now + FALLBACK_ACCESS_TOKEN_LIFETIME_MS;
}

export function needsRefresh(tokens: Pick<TokenSet, "expiresAt">, now: number = Date.now()): boolean {
  return tokens.expiresAt - now <= REFRESH_THRESHOLD_MS;
}

const refreshReplySchema = z.object({
  access_token: z.string().min(1),
  id_token: z.string().min(1).optional(),
  refresh_token: z.string().min(1).optional(),
  expires_in: z.coerce.number().optional().catch(undefined),
});

/**
 * Exchanges the refresh token for a fresh token set. Refresh tokens rotate and are single-use:
 * the returned set carries the new one, and the old one must never be sent again.
 * Throws `refresh_token_invalid` for a dead token (any 401, or an expired/reused/invalidated
 * code), `token_refresh_failed` for other failures, `network_error` when the call itself failed.
 */
export async function refreshTokenSet(
  config: UpstreamConfig,
  current: TokenSet,
  options: UpstreamCallOptions = {},
): Promise<TokenSet> {
  const reply = await fetchUpstreamText(
    config,
    tokenEndpoint(config),
    {
      method: "POST",
      headers: identityHeaders(config, "application/json"),
      body: JSON.stringify({
        client_id: config.clientId,
        grant_type: "refresh_token",
        refresh_token: current.refreshToken,
      }),
    },
    "Token refresh",
    options,
  );

  if (!reply.ok) {
    const error = readUpstreamErrorBody(reply.text);
    const summary = upstreamSnippet(summarizeUpstreamError(error), { maxChars: 200 });
    const details = { status: reply.status, body: reply.text };
    if (reply.status === 401 || error.codes.some((code) => DEAD_REFRESH_TOKEN_CODES.has(code))) {
      throw new ProviderAuthError(
        "refresh_token_invalid",
        `The refresh token is no longer valid (${reply.status}${summary ? `: ${summary}` : ""})`,
        details,
      );
    }
    throw new ProviderAuthError(
      "token_refresh_failed",
      `Token refresh failed (${reply.status}${summary ? `: ${summary}` : ""})`,
      details,
    );
  }

  // A 2xx body holds tokens: never copy it into the error.
  const parsed = refreshReplySchema.safeParse(parseJsonOrUndefined(reply.text));
  if (!parsed.success) {
    throw new ProviderAuthError("token_refresh_failed", "Token refresh reply had no access token", {
      status: reply.status,
    });
  }
  const { access_token, id_token, refresh_token, expires_in } = parsed.data;
  return {
    accessToken: access_token,
    idToken: id_token ?? current.idToken,
    refreshToken: refresh_token ?? current.refreshToken,
    expiresAt: computeExpiresAt(access_token, expires_in),
  };
}

/** Best-effort revocation at sign-out: never throws, never waits past the request timeout. */
export async function revokeRefreshToken(config: UpstreamConfig, refreshToken: string): Promise<void> {
  try {
    await fetchUpstreamText(
      config,
      `${config.issuer}/oauth/revoke`,
      {
        method: "POST",
        headers: identityHeaders(config, "application/json"),
        body: JSON.stringify({ token: refreshToken, token_type_hint: "refresh_token", client_id: config.clientId }),
      },
      "Token revocation",
    );
  } catch {
    // Sign-out goes ahead locally whatever the provider says.
  }
}
