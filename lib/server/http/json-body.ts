import "server-only";
import type { ApiErrorCode } from "@/lib/error-codes";
import { readBodyWithLimit } from "./body-limit";
import { errorResponse } from "./api-error";
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "./json-depth";

type JsonBodyResult = { ok: true; body: Record<string, unknown> } | { ok: false; response: Response };

/** How a route answers a body it refuses. */
export interface JsonBodyRules {
  maxRequestBytes: number;
  /** `{error: tooLarge, maxRequestBytes}` (a code answered 413). */
  tooLarge: ApiErrorCode;
  /** `{error: invalid, message}` (a code answered 400). */
  invalid: ApiErrorCode;
  /** The expected shape for the messages, e.g. `{sdp, session}`. */
  shape?: string;
}

const decoder = new TextDecoder();

/**
 * The one reader of a JSON request body. Size first (413 before any parsing, by Content-Length and
 * by counting), 499 when the client went away mid-upload, then nesting depth (checked on the text,
 * so a deeply nested body is never parsed), then JSON, then an object. Messages never echo the body.
 */
export async function readJsonBody(request: Request, rules: JsonBodyRules): Promise<JsonBodyResult> {
  const invalid = (message: string): JsonBodyResult => ({ ok: false, response: errorResponse(rules.invalid, { message }) });
  const shape = rules.shape ? `: ${rules.shape}` : "";
  const read = await readBodyWithLimit(request, rules.maxRequestBytes);
  if (!read.ok && read.reason === "too_large") {
    return { ok: false, response: errorResponse(rules.tooLarge, { maxRequestBytes: rules.maxRequestBytes }) };
  }
  if (!read.ok) {
    // 499: the client went away mid-upload and reads no reply; otherwise the upload broke off.
    if (request.signal.aborted) return { ok: false, response: new Response(null, { status: 499 }) };
    return invalid("The request body could not be read to its end.");
  }
  const text = decoder.decode(read.bytes);
  if (exceedsJsonDepth(text)) return invalid(`The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return invalid(`The request body must be JSON${shape}.`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return invalid(`The request body must be a JSON object${shape}.`);
  return { ok: true, body: json as Record<string, unknown> };
}
