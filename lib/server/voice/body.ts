import "server-only";
import { z } from "zod";
import {
  looksLikeSdp,
  REALTIME_TRANSPORTS,
  VOICE_MODES,
  type RealtimeCallRequest,
} from "@/lib/upstream/realtime";
import { errorResponse } from "../http/api-error";
import { readJsonBody } from "../http/json-body";

const MAX_INSTRUCTIONS_CHARS = 8000;

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

type RealtimeBodyResult = { ok: true; call: RealtimeCallRequest } | { ok: false; response: Response };

function invalid(message: string): RealtimeBodyResult {
  return { ok: false, response: errorResponse("invalid_realtime_request", { message }) };
}

/** `POST /realtime` body: the JSON body (lib/server/http/json-body.ts), then its shape. Messages name the field and never echo the body. */
export async function readRealtimeBody(request: Request, maxRequestBytes: number): Promise<RealtimeBodyResult> {
  const read = await readJsonBody(request, {
    maxRequestBytes,
    tooLarge: "realtime_request_too_large",
    invalid: "invalid_realtime_request",
    shape: "{sdp, session}",
  });
  if (!read.ok) return read;
  const parsed = bodySchema.safeParse(read.body);
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

/** The texts of a /realtime request: the offer SDP (it carries the ICE credentials) and the session's strings. */
export function realtimeInputTexts(call: RealtimeCallRequest): string[] {
  return [call.sdp, call.instructions, call.voice, call.model].filter((text): text is string => text !== undefined);
}
