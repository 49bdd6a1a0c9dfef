import "server-only";
import { z } from "zod";
import {
  looksLikeSdp,
  REALTIME_TRANSPORTS,
  VOICE_MODES,
  type RealtimeCallRequest,
} from "@/lib/upstream/realtime";
import { readBodyWithLimit } from "./body-limit";
import { errorResponse } from "./json";

export const MAX_INSTRUCTIONS_CHARS = 8000;

const sessionSchema = z.object({
  voice: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, "must be a voice name (letters, digits, - and _)")
    .optional(),
  transport: z.enum(REALTIME_TRANSPORTS).optional(),
  voiceMode: z.enum(VOICE_MODES).optional(),
  model: z.string().trim().min(1).max(128).optional(),
  instructions: z.string().max(MAX_INSTRUCTIONS_CHARS).optional(),
});

const bodySchema = z.object({
  sdp: z.string().refine(looksLikeSdp, "must be an SDP offer (text starting with v=0)"),
  session: sessionSchema.optional(),
});

export type RealtimeBodyResult = { ok: true; call: RealtimeCallRequest } | { ok: false; response: Response };

function invalid(message: string): RealtimeBodyResult {
  return { ok: false, response: errorResponse(400, "invalid_realtime_request", { message }) };
}

/**
 * `POST /realtime` body: size first (413 before any parsing, by Content-Length and by counting),
 * then JSON, then the shape. Messages name the field and never echo the body.
 */
export async function readRealtimeBody(request: Request, maxRequestBytes: number): Promise<RealtimeBodyResult> {
  const read = await readBodyWithLimit(request, maxRequestBytes);
  if (!read.ok && read.reason === "too_large") {
    return { ok: false, response: errorResponse(413, "realtime_request_too_large", { maxRequestBytes }) };
  }
  if (!read.ok) {
    if (request.signal.aborted) return { ok: false, response: new Response(null, { status: 499 }) };
    return invalid("The request body could not be read to its end.");
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(read.bytes));
  } catch {
    return invalid("The request body must be JSON: {sdp, session}.");
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return invalid("The request body must be a JSON object: {sdp, session}.");
  }
  const parsed = bodySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.join(".") : "body";
    return invalid(`\`${field}\`: ${issue?.message ?? "unexpected shape"}`);
  }
  const { sdp, session = {} } = parsed.data;
  return {
    ok: true,
    call: {
      transport: session.transport ?? "codex",
      sdp,
      ...(session.voice !== undefined ? { voice: session.voice } : {}),
      ...(session.voiceMode !== undefined ? { voiceMode: session.voiceMode } : {}),
      ...(session.model !== undefined ? { model: session.model } : {}),
      ...(session.instructions !== undefined ? { instructions: session.instructions } : {}),
    },
  };
}
