import "server-only";
import type { z } from "zod";
import type { ApiErrorCode } from "@/lib/error-codes";
import { ApiError } from "./api-error";
import { readBodyWithLimit } from "./body-limit";
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
  /** An empty body reads as `{}` (no fields given) instead of being refused. */
  emptyIsObject?: boolean;
}

const decoder = new TextDecoder();

/** The JSON object of a body, or why not: a refusal, or null when the client went away mid-upload. */
async function readJsonObject(request: Request, rules: JsonBodyRules): Promise<{ body: Record<string, unknown> } | { refusal: ApiError | null }> {
  const invalid = (message: string) => ({ refusal: new ApiError(rules.invalid, { message }) });
  const shape = rules.shape ? `: ${rules.shape}` : "";
  const read = await readBodyWithLimit(request, rules.maxRequestBytes);
  if (!read.ok && read.reason === "too_large") return { refusal: new ApiError(rules.tooLarge, { maxRequestBytes: rules.maxRequestBytes }) };
  if (!read.ok) {
    // The client went away mid-upload and reads no reply; otherwise the upload broke off.
    if (request.signal.aborted) return { refusal: null };
    return invalid("The request body could not be read to its end.");
  }
  if (rules.emptyIsObject && read.bytes.byteLength === 0) return { body: {} };
  const text = decoder.decode(read.bytes);
  if (exceedsJsonDepth(text)) return invalid(`The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return invalid(`The request body must be JSON${shape}.`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return invalid(`The request body must be a JSON object${shape}.`);
  return { body: json as Record<string, unknown> };
}

/**
 * The one reader of a JSON request body. Size first (413 before any parsing, by Content-Length and
 * by counting), 499 when the client went away mid-upload, then nesting depth (checked on the text,
 * so a deeply nested body is never parsed), then JSON, then an object. Messages never echo the body.
 */
export async function readJsonBody(request: Request, rules: JsonBodyRules): Promise<JsonBodyResult> {
  const read = await readJsonObject(request, rules);
  if ("body" in read) return { ok: true, body: read.body };
  return { ok: false, response: read.refusal ? read.refusal.toResponse() : new Response(null, { status: 499 }) };
}

/**
 * The JSON body of a route of your own (docs/server.md): read as the handler reads its own (an
 * empty body as `{}`), then checked with a zod `schema`. Throws `ApiError` for the route to answer (`providerHandler.route`
 * does): 413 `request_too_large` with `maxRequestBytes`, 400 `invalid_request` with a `message`
 * naming the field.
 */
export async function readJsonRequest<Schema extends z.ZodType>(
  request: Request,
  schema: Schema,
  { maxRequestBytes }: { maxRequestBytes: number },
): Promise<z.infer<Schema>> {
  const read = await readJsonObject(request, { maxRequestBytes, tooLarge: "request_too_large", invalid: "invalid_request", emptyIsObject: true });
  if (!("body" in read)) throw read.refusal ?? new ApiError("invalid_request", { message: "The request body could not be read to its end." });
  const parsed = schema.safeParse(read.body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.length ? `\`${issue.path.join(".")}\`: ` : "";
  throw new ApiError("invalid_request", { message: `${field}${issue?.message ?? "The request body has an unexpected shape."}` });
}
