import "server-only";
import { z } from "zod";
import { readUpstreamErrorBody, summarizeUpstreamError, type UpstreamErrorBody } from "./error-body";
import { ProviderAuthError } from "./errors";
import { fetchUpstreamText, parseJsonOrUndefined, type UpstreamCallOptions } from "./http";
import { upstreamSnippet } from "./redact";
import { computeExpiresAt, identityHeaders, tokenEndpoint } from "./tokens";
import type { DeviceCode, DevicePollResult, TokenSet, UpstreamConfig } from "./types";

/** Upstream returns no expiry: a device code lives 15 minutes from issue. */
export const DEVICE_CODE_LIFETIME_MS = 15 * 60_000;
const DEFAULT_POLL_INTERVAL_SECONDS = 5;

function deviceApi(config: UpstreamConfig, path: string): string {
  return `${config.issuer}/api/accounts/deviceauth/${path}`;
}

function withSummary(prefix: string, status: number, error: UpstreamErrorBody): string {
  const summary = upstreamSnippet(summarizeUpstreamError(error), { maxChars: 200 });
  return `${prefix} (${status}${summary ? `: ${summary}` : ""})`;
}

/** Upstream usually sends the interval as a string such as "5"; anything unusable means 5. */
export function parseIntervalSeconds(value: unknown): number {
  const seconds =
    typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : DEFAULT_POLL_INTERVAL_SECONDS;
}

const deviceCodeReplySchema = z
  .object({
    device_auth_id: z.string().min(1),
    user_code: z.string().min(1).optional(),
    usercode: z.string().min(1).optional(),
    interval: z.unknown(),
  })
  .refine((reply) => reply.user_code !== undefined || reply.usercode !== undefined);

/**
 * Step 1: asks the provider for a device code. Throws `device_code_disabled` on 404,
 * `device_code_request_failed` on another non-2xx or a malformed reply, `network_error` when
 * the call failed.
 */
export async function requestDeviceCode(
  config: UpstreamConfig,
  options: { now?: number; signal?: AbortSignal } = {},
): Promise<DeviceCode> {
  const reply = await fetchUpstreamText(
    config,
    deviceApi(config, "usercode"),
    {
      method: "POST",
      headers: identityHeaders(config, "application/json"),
      body: JSON.stringify({ client_id: config.clientId }),
    },
    "Device code request",
    { signal: options.signal },
  );
  const issuedAt = options.now ?? Date.now();

  if (reply.status === 404) {
    throw new ProviderAuthError(
      "device_code_disabled",
      "Device-code login is not enabled for this client or workspace (404)",
      { status: reply.status, body: reply.text },
    );
  }
  if (!reply.ok) {
    throw new ProviderAuthError(
      "device_code_request_failed",
      withSummary("The provider refused to issue a device code", reply.status, readUpstreamErrorBody(reply.text)),
      { status: reply.status, body: reply.text },
    );
  }
  const parsed = deviceCodeReplySchema.safeParse(parseJsonOrUndefined(reply.text));
  if (!parsed.success) {
    // Not copying the body: it may hold a device auth id.
    throw new ProviderAuthError("device_code_request_failed", "The device code reply was malformed", {
      status: reply.status,
    });
  }
  return {
    deviceAuthId: parsed.data.device_auth_id,
    userCode: (parsed.data.user_code ?? parsed.data.usercode) as string,
    intervalSeconds: parseIntervalSeconds(parsed.data.interval),
    verificationUrl: config.verificationUrl,
    issuedAt,
    expiresAt: issuedAt + DEVICE_CODE_LIFETIME_MS,
  };
}

/** Statuses the provider (or its edge) uses to say "not yet". */
const PENDING_STATUSES = new Set([403, 404, 429]);

function says(error: UpstreamErrorBody, pattern: RegExp): boolean {
  return error.codes.some((code) => pattern.test(code)) || pattern.test(error.message ?? "");
}

const saysExpired = (error: UpstreamErrorBody) => says(error, /expired/i);
const saysDenied = (error: UpstreamErrorBody) => says(error, /denied|declined|rejected/i);

const approvedReplySchema = z.object({
  authorization_code: z.string().min(1),
  code_verifier: z.string().min(1),
  code_challenge: z.string().min(1),
});

/**
 * Step 2: one poll. Returns pending for 403/404/429 and for a 2xx without the three PKCE
 * fields. Throws `authorization_expired` or `authorization_denied` when the reply says so,
 * `token_exchange_failed` on another non-2xx, `network_error` when the call failed.
 */
export async function pollDeviceAuthorization(
  config: UpstreamConfig,
  device: Pick<DeviceCode, "deviceAuthId" | "userCode">,
  options: UpstreamCallOptions = {},
): Promise<DevicePollResult> {
  const reply = await fetchUpstreamText(
    config,
    deviceApi(config, "token"),
    {
      method: "POST",
      headers: identityHeaders(config, "application/json"),
      body: JSON.stringify({ device_auth_id: device.deviceAuthId, user_code: device.userCode }),
    },
    "Device authorization poll",
    options,
  );

  if (reply.ok) {
    const approved = approvedReplySchema.safeParse(parseJsonOrUndefined(reply.text));
    if (!approved.success) return { status: "pending" };
    return {
      status: "approved",
      authorizationCode: approved.data.authorization_code,
      codeVerifier: approved.data.code_verifier,
      codeChallenge: approved.data.code_challenge,
    };
  }

  const error = readUpstreamErrorBody(reply.text);
  const details = { status: reply.status, body: reply.text };
  // Checked before the pending statuses: an explicit "expired"/"denied" wins over the status.
  if (saysExpired(error)) {
    throw new ProviderAuthError("authorization_expired", withSummary("The device code expired", reply.status, error), details);
  }
  if (saysDenied(error)) {
    throw new ProviderAuthError(
      "authorization_denied",
      withSummary("The user denied the device login", reply.status, error),
      details,
    );
  }
  if (PENDING_STATUSES.has(reply.status)) return { status: "pending" };
  throw new ProviderAuthError(
    "token_exchange_failed",
    withSummary("Polling for the device authorization failed", reply.status, error),
    details,
  );
}

const exchangeReplySchema = z.object({
  id_token: z.string().min(1),
  access_token: z.string().min(1),
  refresh_token: z.string().min(1),
  expires_in: z.coerce.number().optional().catch(undefined),
});

/**
 * Step 3: trades the authorization code (with the server-made PKCE verifier) for tokens.
 * Form-encoded, as the token endpoint expects for this grant. Throws `token_exchange_failed`,
 * or `network_error` when the call failed.
 */
export async function exchangeAuthorizationCode(
  config: UpstreamConfig,
  grant: { authorizationCode: string; codeVerifier: string },
  options: UpstreamCallOptions = {},
): Promise<TokenSet> {
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code: grant.authorizationCode,
    code_verifier: grant.codeVerifier,
    client_id: config.clientId,
    redirect_uri: `${config.issuer}/deviceauth/callback`,
  });
  const reply = await fetchUpstreamText(
    config,
    tokenEndpoint(config),
    {
      method: "POST",
      headers: identityHeaders(config, "application/x-www-form-urlencoded"),
      body: form.toString(),
    },
    "Token exchange",
    options,
  );

  if (!reply.ok) {
    throw new ProviderAuthError(
      "token_exchange_failed",
      withSummary("Exchanging the authorization code failed", reply.status, readUpstreamErrorBody(reply.text)),
      { status: reply.status, body: reply.text },
    );
  }
  // A 2xx body holds tokens: never copy it into the error.
  const parsed = exchangeReplySchema.safeParse(parseJsonOrUndefined(reply.text));
  if (!parsed.success) {
    throw new ProviderAuthError("token_exchange_failed", "The token reply lacked id, access or refresh token", {
      status: reply.status,
    });
  }
  return {
    idToken: parsed.data.id_token,
    accessToken: parsed.data.access_token,
    refreshToken: parsed.data.refresh_token,
    expiresAt: computeExpiresAt(parsed.data.access_token, parsed.data.expires_in),
  };
}
