import "server-only";
import { API_ERRORS } from "@/lib/error-codes";

/** The failures of a SIWC sign-in that reach the page as `?signin_error=<code>` (lib/error-codes.ts has their sentences). */
export type SiwcErrorCode =
  | "siwc_access_denied"
  | "siwc_registration_incomplete"
  | "siwc_client_mismatch"
  | "account_mismatch"
  | "invalid_id_token"
  | "identity_verification_unavailable"
  | "siwc_exchange_failed";

/**
 * A SIWC sign-in that cannot go on, with the code the page gets (`?signin_error=`). `logDetail` is
 * for the server's log line only (never a token; upstream bodies as bounded snippets).
 */
export class SiwcFlowError extends Error {
  readonly code: SiwcErrorCode;
  readonly logDetail: string;
  constructor(code: SiwcErrorCode, logDetail: string, options?: { cause?: unknown }) {
    super(API_ERRORS[code].message, options);
    this.name = "SiwcFlowError";
    this.code = code;
    this.logDetail = logDetail;
  }
}

export function isSiwcFlowError(error: unknown): error is SiwcFlowError {
  return error instanceof SiwcFlowError;
}
