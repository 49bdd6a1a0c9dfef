import "server-only";
import { z } from "zod";

/** The voices `codex app-server` 0.171.0 accepts (its RealtimeVoice enum, the same as 0.169.0's). */
const REALTIME_VOICES = [
  "alloy", "arbor", "ash", "aube", "ballad", "breeze", "bubbie", "cedar", "coral", "cove", "echo", "ember",
  "haetsal", "hanul", "himari", "juniper", "leher", "maple", "marin", "miko", "neer", "porto", "rindo", "rio",
  "rivage", "sage", "selva", "shimmer", "sol", "sonna", "spruce", "tinta", "vale", "verse", "viola",
] as const;

const startSchema = z.object({
  sdp: z
    .string()
    .min(1, "`sdp` must be the browser's offer SDP")
    .refine((sdp) => sdp.startsWith("v=0"), "`sdp` must be an SDP offer (starting with v=0)")
    // An offer without an audio section is refused before a codex process is spawned for it.
    .refine((sdp) => /^m=audio /m.test(sdp), "`sdp` must offer an audio section (m=audio)"),
  session: z
    .object({
      voice: z.enum(REALTIME_VOICES).optional(),
      model: z.string().trim().min(1).max(200).optional(),
    })
    .optional(),
});

const confirmSchema = z.object({
  callId: z.string().min(1).max(200),
  confirmation: z.object({ approved: z.boolean() }),
});

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue?.path.join(".");
  return path ? `${path}: ${issue?.message ?? "invalid"}` : (issue?.message ?? "invalid body");
}

/** The start's JSON object (lib/server/http/json-body.ts read it), checked. */
export function parseStartBody(value: Record<string, unknown>): Parsed<{ sdp: string; voice?: string; model?: string }> {
  const parsed = startSchema.safeParse(value);
  if (!parsed.success) return { ok: false, message: firstIssue(parsed.error) };
  const { sdp, session } = parsed.data;
  return { ok: true, value: { sdp, ...(session?.voice ? { voice: session.voice } : {}), ...(session?.model ? { model: session.model } : {}) } };
}

/** The confirmation's JSON object, checked. */
export function parseConfirmBody(value: Record<string, unknown>): Parsed<{ callId: string; confirmation: { approved: boolean } }> {
  const parsed = confirmSchema.safeParse(value);
  if (!parsed.success) return { ok: false, message: firstIssue(parsed.error) };
  return { ok: true, value: parsed.data };
}
