import "server-only";
import { readBodyWithLimit } from "./body-limit";
import { errorResponse } from "./json";
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "./json-depth";

/**
 * The only shape rules we check ourselves (`model`, `input`, `stream`); the rest of the Responses API
 * body passes through. `stream: true` streams the reply; absent or false (the API's default) gets one JSON reply.
 */
export type ResponsesRequestBody = Record<string, unknown> & { model: string; input: string | unknown[]; stream?: boolean };

export type BodyResult = { ok: true; body: ResponsesRequestBody } | { ok: false; response: Response };

function invalid(message: string): BodyResult {
  return { ok: false, response: errorResponse(400, "invalid_responses_request", { message }) };
}

const decoder = new TextDecoder();

/** Size limit first (413 before any parsing), then nesting depth, then JSON, then the shape. Messages never echo the body. */
export async function readResponsesBody(request: Request, maxRequestBytes: number): Promise<BodyResult> {
  const read = await readBodyWithLimit(request, maxRequestBytes);
  if (!read.ok && read.reason === "too_large") {
    return { ok: false, response: errorResponse(413, "responses_request_too_large", { maxRequestBytes }) };
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
    return invalid("The request body must be JSON.");
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return invalid("The request body must be a JSON object.");
  }
  // Checked in place on the object JSON.parse just made (no copy of the body); each message names its field.
  const body = json as Record<string, unknown>;
  if (typeof body.model !== "string" || body.model.trim() === "") return invalid("`model` must be a non-empty string");
  if (typeof body.input !== "string" && !Array.isArray(body.input)) return invalid("`input` must be a string or an array");
  if (body.stream !== undefined && typeof body.stream !== "boolean") return invalid("`stream` must be a boolean");
  body.model = body.model.trim();
  return { ok: true, body: body as ResponsesRequestBody };
}
