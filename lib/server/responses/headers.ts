import "server-only";
import { REASONING_EFFORTS, SERVICE_TIERS, type ReasoningEffort, type ServiceTier } from "@/lib/upstream/types";
import { ApiError } from "../http/api-error";

const SERVICE_TIER_HEADER = "x-login-with-provider-service-tier";
const REASONING_EFFORT_HEADER = "x-login-with-provider-reasoning-effort";

interface ProxyHeaders {
  serviceTier?: ServiceTier;
  reasoningEffort?: ReasoningEffort;
}

function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

/**
 * The optional tier and effort headers of POST /responses. Values are compared case-insensitively;
 * an empty header counts as absent; anything else outside the allowed values is refused
 * (`invalid_service_tier`, `invalid_reasoning_effort`).
 */
export function readProxyHeaders(request: Request): ProxyHeaders {
  const tier = request.headers.get(SERVICE_TIER_HEADER)?.trim();
  const effort = request.headers.get(REASONING_EFFORT_HEADER)?.trim();
  const result: ProxyHeaders = {};
  if (tier) {
    const value = tier.toLowerCase();
    if (!isOneOf(SERVICE_TIERS, value)) throw new ApiError("invalid_service_tier", { serviceTier: tier });
    result.serviceTier = value;
  }
  if (effort) {
    const value = effort.toLowerCase();
    if (!isOneOf(REASONING_EFFORTS, value)) throw new ApiError("invalid_reasoning_effort", { reasoningEffort: effort });
    result.reasoningEffort = value;
  }
  return result;
}
