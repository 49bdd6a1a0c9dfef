import "server-only";
import { ProviderAuthError } from "@/lib/upstream/errors";
import type { KeyValueStore } from "@/lib/stores/types";
import type { UpstreamConfig } from "@/lib/upstream/types";
import type { Logger } from "@/lib/logger";
import { LOG_PREFIX } from "@/lib/logger";
import type { ResolvedSiwcOptions } from "../options";
import type { AuthenticatedRecord } from "../session/record";
import type { Sealer } from "../session/seal";
import { SIWC_RESOURCE } from "./config";
import { createDiscovery } from "./discovery";
import { isSiwcFlowError } from "./flow-error";
import { createIdTokenVerifier } from "./id-token";
import { createSiwcStore } from "./store";
import { PLAN_USAGE_SCOPE, refreshGrant, revokeRefreshToken } from "./token-endpoint";

interface Deps {
  options: ResolvedSiwcOptions;
  upstream: UpstreamConfig;
  store: KeyValueStore;
  sealer: Sealer;
  logger: Logger;
  now: () => number;
}

/**
 * The server's side of Sign in with ChatGPT that outlives one request: the issuer's endpoints, its
 * keys, what the store keeps, and the refresh and revocation of a SIWC session's tokens.
 */
export function createSiwcClient({ options, upstream, store, sealer, logger, now }: Deps) {
  const discovery = createDiscovery(options.issuer, upstream, now);
  const idTokens = createIdTokenVerifier(upstream, now);
  const siwcStore = createSiwcStore(store, sealer, now);

  /**
   * New tokens for a SIWC session (the refresh coordinator holds the login's lock). The rotated
   * refresh token, the access token, its expiry and the scopes are replaced together; a reply
   * without `scope` keeps the previous scopes. A new ID token must verify and name the same `sub`,
   * or the login ends. Throws the coordinator's ProviderAuthError codes.
   */
  async function refresh(current: AuthenticatedRecord, signal?: AbortSignal): Promise<AuthenticatedRecord> {
    const siwc = current.siwc!;
    // Signed in without offline_access (identity only): nothing to refresh, and the sign-in lasts the session.
    if (current.tokens.refreshToken === "") return current;
    let endpoints;
    try {
      endpoints = await discovery.endpoints(signal);
    } catch (error) {
      throw new ProviderAuthError("network_error", "Token refresh failed: the provider could not be reached.", { cause: error });
    }
    const granted = await refreshGrant(
      upstream,
      endpoints.token,
      { clientId: siwc.clientId, refreshToken: current.tokens.refreshToken, resource: SIWC_RESOURCE },
      now(),
      signal,
    );
    if (granted.accessToken === "") throw new ProviderAuthError("token_refresh_failed", "Token refresh reply had no access token");
    let idToken = current.tokens.idToken;
    if (granted.idToken !== undefined) {
      let why: string | undefined;
      try {
        const identity = await idTokens.verify(granted.idToken, { jwksUri: endpoints.jwks, issuer: options.issuer, clientId: siwc.clientId }, signal);
        if (identity.subject === siwc.subject) idToken = granted.idToken;
        else why = "The refreshed ID token names another account";
      } catch (error) {
        if (!isSiwcFlowError(error)) throw error;
        if (error.code !== "identity_verification_unavailable") why = "The refreshed ID token did not verify";
        // The keys cannot be had now: keep the rotated tokens (the old refresh token is spent) and the old ID token.
        else logger.warn(`${LOG_PREFIX} SIWC refresh: the new ID token could not be verified yet (${error.logDetail}); keeping the previous one`);
      }
      if (why !== undefined) {
        // The login ends: the refresh token just issued must not outlive it.
        // One try: this runs inside the refresh lock.
        if (granted.refreshToken && endpoints.revocation) {
          await revokeRefreshToken(upstream, endpoints.revocation, { clientId: siwc.clientId, refreshToken: granted.refreshToken }, 1);
        }
        throw new ProviderAuthError("refresh_token_invalid", why);
      }
    }
    const scopes = granted.scopes ?? siwc.scopes;
    return {
      ...current,
      tokens: {
        idToken,
        accessToken: granted.accessToken,
        refreshToken: granted.refreshToken ?? current.tokens.refreshToken,
        expiresAt: granted.expiresAt,
      },
      siwc: { ...siwc, scopes, planUsage: scopes.includes(PLAN_USAGE_SCOPE) },
    };
  }

  /** Revokes the session's refresh token: `confirmed` only when the provider answered 200 (or nothing was held). */
  async function revoke(record: AuthenticatedRecord): Promise<"confirmed" | "unconfirmed"> {
    if (record.tokens.refreshToken === "") return "confirmed";
    let revocationUrl;
    try {
      revocationUrl = (await discovery.endpoints()).revocation;
    } catch {
      revocationUrl = undefined;
    }
    if (revocationUrl === undefined) return "unconfirmed";
    const confirmed = await revokeRefreshToken(upstream, revocationUrl, { clientId: record.siwc!.clientId, refreshToken: record.tokens.refreshToken });
    if (!confirmed) logger.warn(`${LOG_PREFIX} SIWC sign-out: the provider did not confirm the revocation of the refresh token`);
    return confirmed ? "confirmed" : "unconfirmed";
  }

  return { options, upstream, discovery, idTokens, store: siwcStore, refresh, revoke };
}

export type SiwcClient = ReturnType<typeof createSiwcClient>;
