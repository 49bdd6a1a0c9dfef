import "server-only";
import { SIWC_ERROR_MESSAGES, type SiwcErrorCode } from "./messages";

/**
 * A SIWC sign-in that cannot go on, with the code the page gets (`?signin_error=`). `logDetail` is
 * for the server's log line only (never a token; upstream bodies as bounded snippets).
 */
export class SiwcFlowError extends Error {
  readonly code: SiwcErrorCode;
  readonly logDetail: string;
  constructor(code: SiwcErrorCode, logDetail: string, options?: { cause?: unknown }) {
    super(SIWC_ERROR_MESSAGES[code], options);
    this.name = "SiwcFlowError";
    this.code = code;
    this.logDetail = logDetail;
  }
}

export function isSiwcFlowError(error: unknown): error is SiwcFlowError {
  return error instanceof SiwcFlowError;
}
