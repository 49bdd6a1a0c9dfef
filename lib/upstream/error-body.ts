import "server-only";
import { parseJsonOrUndefined } from "./http";

/** The machine code and human message an upstream error body carries, in any of its shapes. */
export interface UpstreamErrorBody {
  /** The most specific code, for messages. */
  code?: string;
  /** Every code-like value found (string `error`, `error.code`, `error.type`, top-level `code`), for matching. */
  codes: string[];
  message?: string;
  detail?: string;
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * Reads `error` (a string, or an object with `code`/`type`/`message`), `error_description`,
 * a top-level `code`/`message`, and `detail`. Returns `{codes: []}` for non-JSON bodies.
 */
export function readUpstreamErrorBody(text: string): UpstreamErrorBody {
  const root = asRecord(parseJsonOrUndefined(text));
  if (!root) return { codes: [] };
  const errorObject = asRecord(root.error);
  const codes = [root.error, errorObject?.code, errorObject?.type, root.code]
    .map(stringOrUndefined)
    .filter((value): value is string => value !== undefined);
  const code = codes[0];
  const message =
    stringOrUndefined(root.error_description) ??
    stringOrUndefined(errorObject?.message) ??
    stringOrUndefined(root.message);
  const detail = stringOrUndefined(root.detail);
  const result: UpstreamErrorBody = { codes };
  if (code !== undefined) result.code = code;
  if (message !== undefined) result.message = message;
  if (detail !== undefined) result.detail = detail;
  return result;
}

/** "code: message" for error messages, or undefined when the body said nothing useful. */
export function summarizeUpstreamError(error: UpstreamErrorBody): string | undefined {
  const parts = [error.code, error.message ?? error.detail].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join(": ") : undefined;
}
