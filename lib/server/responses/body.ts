import "server-only";
import { errorResponse } from "../http/api-error";
import type { ResponsesRequestBody } from "../models/backend";
import { readJsonBody } from "../http/json-body";


type BodyResult = { ok: true; body: ResponsesRequestBody } | { ok: false; response: Response };

function invalid(message: string): BodyResult {
  return { ok: false, response: errorResponse("invalid_responses_request", { message }) };
}

/** The JSON body (lib/server/http/json-body.ts: size, depth, JSON, object), then the shape. Messages never echo the body. */
export async function readResponsesBody(request: Request, maxRequestBytes: number): Promise<BodyResult> {
  const read = await readJsonBody(request, { maxRequestBytes, tooLarge: "responses_request_too_large", invalid: "invalid_responses_request" });
  if (!read.ok) return read;
  // Checked in place on the object JSON.parse just made (no copy of the body); each message names its field.
  const { body } = read;
  if (typeof body.model !== "string" || body.model.trim() === "") return invalid("`model` must be a non-empty string");
  if (typeof body.input !== "string" && !Array.isArray(body.input)) return invalid("`input` must be a string or an array");
  if (body.stream !== undefined && typeof body.stream !== "boolean") return invalid("`stream` must be a boolean");
  body.model = body.model.trim();
  return { ok: true, body: body as ResponsesRequestBody };
}
