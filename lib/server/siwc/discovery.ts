import "server-only";
import { z } from "zod";
import { fetchUpstreamText, parseJsonOrUndefined } from "@/lib/upstream/http";
import type { UpstreamConfig } from "@/lib/upstream/types";
import { SiwcFlowError } from "./flow-error";

/** The fields of the issuer's OpenID discovery document SIWC uses. */
interface SiwcEndpoints {
  issuer: string;
  authorization: string;
  token: string;
  jwks: string;
  /** Optional in the document: without it sign-out cannot confirm a revocation. */
  revocation?: string;
}

/** A good document is kept this long; a failed fetch is not kept (the next call tries again). */
const DISCOVERY_CACHE_MS = 60 * 60_000;

const documentSchema = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  jwks_uri: z.string(),
  revocation_endpoint: z.string().optional(),
});

/**
 * Reads `{issuer}/.well-known/openid-configuration` (cached): its `issuer` must equal the configured
 * one exactly, and every endpoint must be on the issuer's own origin, so a tampered document cannot
 * send the code, the verifier or a refresh token elsewhere. Anything else is
 * `identity_verification_unavailable` (retryable).
 */
export function createDiscovery(issuer: string, upstream: UpstreamConfig, now: () => number) {
  let cached: { endpoints: SiwcEndpoints; fetchedAt: number } | undefined;
  const origin = new URL(issuer).origin;

  function endpoint(value: string, field: string): string {
    if (!URL.canParse(value) || new URL(value).origin !== origin) {
      throw new SiwcFlowError("identity_verification_unavailable", `discovery ${field} is not on the issuer's origin`);
    }
    return value;
  }

  async function load(signal?: AbortSignal): Promise<SiwcEndpoints> {
    let reply;
    try {
      reply = await fetchUpstreamText(
        upstream,
        `${issuer}/.well-known/openid-configuration`,
        { headers: { accept: "application/json" } },
        "SIWC discovery",
        signal ? { signal } : {},
      );
    } catch (error) {
      throw new SiwcFlowError("identity_verification_unavailable", "discovery could not be reached", { cause: error });
    }
    if (!reply.ok) throw new SiwcFlowError("identity_verification_unavailable", `discovery answered ${reply.status}`);
    const parsed = documentSchema.safeParse(parseJsonOrUndefined(reply.text));
    if (!parsed.success) throw new SiwcFlowError("identity_verification_unavailable", "discovery document without the needed fields");
    const document = parsed.data;
    if (document.issuer !== issuer) throw new SiwcFlowError("identity_verification_unavailable", "discovery issuer differs from the configured one");
    return {
      issuer,
      authorization: endpoint(document.authorization_endpoint, "authorization_endpoint"),
      token: endpoint(document.token_endpoint, "token_endpoint"),
      jwks: endpoint(document.jwks_uri, "jwks_uri"),
      ...(document.revocation_endpoint ? { revocation: endpoint(document.revocation_endpoint, "revocation_endpoint") } : {}),
    };
  }

  return {
    /** The endpoints; `signal` cuts a fetch short (a refresh's own deadline). */
    async endpoints(signal?: AbortSignal): Promise<SiwcEndpoints> {
      if (cached && now() - cached.fetchedAt < DISCOVERY_CACHE_MS) return cached.endpoints;
      const endpoints = await load(signal);
      cached = { endpoints, fetchedAt: now() };
      return endpoints;
    },
  };
}
