import { apiErrorCode, type ApiErrorCode } from "@/lib/error-codes";

/** The service's error code, the client's own for a reply it could not read, or `http_<status>` when the body had none. */
type ProxyErrorCode = ApiErrorCode | "invalid_models_response" | "invalid_session_response" | `http_${number}`;

/**
 * Thrown by the browser client (listModels and the session calls) when the service answers with a
 * non-OK status. A 401 means the browser is signed out. Streaming errors from /responses do not use
 * this class: they surface as the AI SDK's own error types.
 */
export class ProviderProxyError extends Error {
  override readonly name = "ProviderProxyError";
  /** HTTP status of the service's answer. */
  readonly status: number;
  /** The service's error code (`not_authenticated`, `rate_limited`, ...), or `http_<status>` when the body had none. */
  readonly code: ProxyErrorCode;
  /** Seconds to wait, from the body's `retryAfterSeconds` or the `retry-after` header (429 only). */
  readonly retryAfterSeconds?: number;
  /** The parsed JSON error body, when there was one. */
  readonly body?: Record<string, unknown>;

  constructor(options: {
    status: number;
    code: ProxyErrorCode;
    message: string;
    retryAfterSeconds?: number;
    body?: Record<string, unknown>;
  }) {
    super(options.message);
    this.status = options.status;
    this.code = options.code;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.body = options.body;
  }

  get isSignedOut(): boolean {
    return this.status === 401;
  }
}

export function isProviderProxyError(error: unknown): error is ProviderProxyError {
  return error instanceof ProviderProxyError;
}

/** Parses a JSON object from text; anything else (HTML, plain text, arrays) gives undefined. */
export function parseJsonObject(text: string | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Reads `retryAfterSeconds` from an error body, else the `retry-after` header (seconds form). */
export function readRetryAfterSeconds(
  body: Record<string, unknown> | undefined,
  retryAfterHeader: string | null | undefined,
): number | undefined {
  const fromBody = body?.retryAfterSeconds;
  if (typeof fromBody === "number" && Number.isFinite(fromBody) && fromBody >= 0) return Math.ceil(fromBody);
  if (retryAfterHeader && /^\d+$/.test(retryAfterHeader.trim())) return Number(retryAfterHeader.trim());
  return undefined;
}

/** Builds a ProviderProxyError from a non-OK service answer (consumes the body). */
export async function providerProxyErrorFromResponse(response: Response): Promise<ProviderProxyError> {
  const text = await response.text().catch(() => "");
  const body = parseJsonObject(text);
  const code = apiErrorCode(body?.error) ?? `http_${response.status}`;
  const bodyMessage = typeof body?.message === "string" ? body.message : undefined;
  return new ProviderProxyError({
    status: response.status,
    code,
    message: bodyMessage ?? `The service answered ${response.status} (${code}).`,
    retryAfterSeconds: readRetryAfterSeconds(body, response.headers.get("retry-after")),
    body,
  });
}
