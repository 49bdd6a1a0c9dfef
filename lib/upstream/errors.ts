import { upstreamSnippet } from "./redact";

/**
 * The one error class of the upstream protocol layer. `code` is machine-readable and
 * spelled exactly as the contract (docs/api.md) spells it; `status` and `body` describe the
 * upstream reply when there was one (`body` is always a bounded snippet without tokens).
 */
type ProviderAuthErrorCode =
  | "device_code_request_failed"
  | "device_code_disabled"
  | "authorization_pending"
  | "authorization_expired"
  /** The user denied the device login (not in the contract's table, docs/api.md: its `error` state is ours to define). */
  | "authorization_denied"
  | "token_exchange_failed"
  | "token_refresh_failed"
  | "refresh_token_invalid"
  | "not_authenticated"
  | "invalid_token"
  | "token_export_disabled"
  | "refresh_token_export_disabled"
  | "token_export_not_available_with_siwc"
  | "network_error"
  | "models_request_failed"
  | "responses_request_failed"
  | "realtime_request_failed";


export class ProviderAuthError extends Error {
  readonly code: ProviderAuthErrorCode;
  readonly status?: number;
  readonly body?: string;
  /**
   * For `network_error`: the origin that could not be reached. For log lines only: the message
   * (which routes pass on to the browser) never names an upstream address.
   */
  readonly upstreamOrigin?: string;

  constructor(
    code: ProviderAuthErrorCode,
    message: string,
    details: { status?: number; body?: string | null; cause?: unknown; upstreamOrigin?: string } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "ProviderAuthError";
    this.code = code;
    if (details.status !== undefined) this.status = details.status;
    if (details.upstreamOrigin !== undefined) this.upstreamOrigin = details.upstreamOrigin;
    const snippet = upstreamSnippet(details.body);
    if (snippet !== undefined) this.body = snippet;
  }
}

export function isProviderAuthError(error: unknown): error is ProviderAuthError {
  return error instanceof ProviderAuthError;
}

/** True when the login is dead: the refresh token was expired, reused or invalidated. */
export function isRefreshTokenInvalid(error: unknown): boolean {
  return isProviderAuthError(error) && error.code === "refresh_token_invalid";
}
