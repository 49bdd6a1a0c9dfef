/** Wire-level types shared by the upstream client, the server and the mock upstream. */

/** Where and how we talk to the provider. Every value is overridable (tests point them at the mock). */
export interface UpstreamConfig {
  /** Identity provider issuer, default `https://auth.openai.com`. */
  issuer: string;
  /** Model backend base, default `https://chatgpt.com/backend-api/codex`. */
  codexBaseUrl: string;
  /** Page where the user enters the code, default `{issuer}/codex/device`. */
  verificationUrl: string;
  clientId: string;
  scope: string;
  /** Value of the `originator` header, default `codex_cli_rs`. */
  originator: string;
  /** Sent as `client_version` to `/models` and as the `version` header on every backend call; default `CLIENT_VERSION`. */
  clientVersion: string;
  userAgent: string;
  /** Timeout for a single non-streaming upstream request. */
  requestTimeoutMs: number;
  fetch: typeof fetch;
}

/** A device code as our service keeps it. Times are epoch milliseconds. */
export interface DeviceCode {
  deviceAuthId: string;
  userCode: string;
  /** Seconds to wait between polls (upstream sends a string; bad or missing means 5). */
  intervalSeconds: number;
  verificationUrl: string;
  issuedAt: number;
  /** issuedAt + 15 minutes: upstream returns no expiry. */
  expiresAt: number;
}

export type DevicePollResult =
  | { status: "pending" }
  | { status: "approved"; authorizationCode: string; codeVerifier: string; codeChallenge: string };

export interface TokenSet {
  idToken: string;
  accessToken: string;
  refreshToken: string;
  /** Access-token expiry, epoch ms (from the JWT `exp`, else `expires_in`, else now + 1 h). */
  expiresAt: number;
}

export interface AccountInfo {
  accountId: string;
  email: string;
  /** `chatgpt_plan_type`, e.g. `plus`; `unknown` when absent. */
  plan: string;
  userId?: string;
}

/** What the model backend needs to authenticate a call. */
export interface BackendAuth {
  accessToken: string;
  accountId: string;
}

export interface ModelInfo {
  slug: string;
  display_name: string;
  visibility: "list" | "hide" | "none" | string;
  supported_reasoning_levels?: { effort: string; description: string }[];
  default_reasoning_level?: string;
  priority?: number;
  service_tiers?: { id: string; name: string; description: string }[];
  context_window?: number;
  input_modalities?: string[];
  [key: string]: unknown;
}

/** Values of the `x-login-with-provider-service-tier` request header. */
export const SERVICE_TIERS = ["auto", "default", "flex", "priority", "fast"] as const;
export type ServiceTier = (typeof SERVICE_TIERS)[number];

/**
 * Values of the `x-login-with-provider-reasoning-effort` request header. Not `ultra`: the backend
 * refuses it on direct calls (Codex sends it as `max`).
 */
export const REASONING_EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];
