import "server-only";
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload } from "jose";
import { fetchUpstreamText, parseJsonOrUndefined } from "@/lib/upstream/http";
import type { UpstreamConfig } from "@/lib/upstream/types";
import { constantTimeEquals } from "../http/constant-time";
import { SiwcFlowError } from "./flow-error";

/** Clock tolerance for `exp`, `iat` and `nbf`. */
const CLOCK_TOLERANCE_SECONDS = 5;
/** Keys are kept this long; an unknown `kid` fetches them again (at most this often). */
const JWKS_CACHE_MS = 10 * 60_000;
const JWKS_REFETCH_MIN_MS = 30_000;

export interface VerifiedIdentity {
  subject: string;
  email: string;
}

/**
 * Verifies SIWC ID tokens with `jose` against the issuer's JWKS: RS256 only, `iss` the issuer,
 * `aud` the issued client id (a string or an array holding it; `azp`, when present or when `aud`
 * has several entries, must be the client id), `exp`/`iat` with 5 s tolerance, a `sub`, and (at
 * sign-in) the attempt's `nonce`. Keys that cannot be had (JWKS unreachable, not JSON, no keys):
 * `identity_verification_unavailable`; any other failure: `invalid_id_token`.
 */
export function createIdTokenVerifier(upstream: UpstreamConfig, now: () => number) {
  let cached: { uri: string; keys: ReturnType<typeof createLocalJWKSet>; fetchedAt: number } | undefined;

  async function fetchKeys(uri: string, signal?: AbortSignal) {
    let reply;
    try {
      reply = await fetchUpstreamText(upstream, uri, { headers: { accept: "application/json" } }, "SIWC JWKS", signal ? { signal } : {});
    } catch (error) {
      throw new SiwcFlowError("identity_verification_unavailable", "the JWKS could not be reached", { cause: error });
    }
    if (!reply.ok) throw new SiwcFlowError("identity_verification_unavailable", `the JWKS answered ${reply.status}`);
    const body = parseJsonOrUndefined(reply.text) as Partial<JSONWebKeySet> | undefined;
    if (!body || !Array.isArray(body.keys) || body.keys.length === 0) {
      throw new SiwcFlowError("identity_verification_unavailable", "the JWKS holds no keys");
    }
    let keys;
    try {
      keys = createLocalJWKSet({ keys: body.keys });
    } catch (error) {
      throw new SiwcFlowError("identity_verification_unavailable", "the JWKS is not a key set", { cause: error });
    }
    cached = { uri, keys, fetchedAt: now() };
    return keys;
  }

  async function keysFor(uri: string, signal?: AbortSignal) {
    if (cached && cached.uri === uri && now() - cached.fetchedAt < JWKS_CACHE_MS) return cached.keys;
    return fetchKeys(uri, signal);
  }

  async function verifyWith(keys: ReturnType<typeof createLocalJWKSet>, token: string, issuer: string, clientId: string) {
    return jwtVerify(token, keys, {
      algorithms: ["RS256"],
      issuer,
      audience: clientId,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ["iss", "aud", "exp", "iat", "sub"],
      currentDate: new Date(now()),
    });
  }

  return {
    async verify(
      token: string,
      expected: { jwksUri: string; issuer: string; clientId: string; nonce?: string },
      signal?: AbortSignal,
    ): Promise<VerifiedIdentity> {
      let payload: JWTPayload;
      try {
        let keys = await keysFor(expected.jwksUri, signal);
        try {
          ({ payload } = await verifyWith(keys, token, expected.issuer, expected.clientId));
        } catch (error) {
          // Keys rotate: an unknown kid fetches the set again (not more often than every 30 s).
          const stale = cached !== undefined && now() - cached.fetchedAt >= JWKS_REFETCH_MIN_MS;
          if (!(error instanceof joseErrors.JWKSNoMatchingKey) || !stale) throw error;
          keys = await fetchKeys(expected.jwksUri, signal);
          ({ payload } = await verifyWith(keys, token, expected.issuer, expected.clientId));
        }
      } catch (error) {
        if (error instanceof SiwcFlowError) throw error;
        const reason = error instanceof joseErrors.JOSEError ? error.code : "not a JWT";
        throw new SiwcFlowError("invalid_id_token", `ID token rejected (${reason})`, { cause: error });
      }
      const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
      const azp = (payload as { azp?: unknown }).azp;
      if ((azp !== undefined || audiences.length > 1) && azp !== expected.clientId) {
        throw new SiwcFlowError("invalid_id_token", "ID token azp is not the client id");
      }
      if (expected.nonce !== undefined) {
        const nonce = (payload as { nonce?: unknown }).nonce;
        if (typeof nonce !== "string" || !constantTimeEquals(nonce, expected.nonce)) {
          throw new SiwcFlowError("invalid_id_token", "ID token nonce does not match the attempt");
        }
      }
      const email = (payload as { email?: unknown }).email;
      return { subject: payload.sub!, email: typeof email === "string" ? email : "" };
    },
  };
}
