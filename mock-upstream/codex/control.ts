import { z } from "zod";
import type { RouteCall } from "../context";
import { sendJson } from "../http-util";
import type { MockCodexControls } from "./index";

const toolCallsSchema = z.object({
  calls: z
    .array(z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).optional(), input: z.string().optional() }))
    .min(1),
});
const handoffSchema = z.object({
  transcript: z.string().min(1),
  transcriptHeld: z.boolean().optional(),
  callId: z.string().min(1).optional(),
  handoffId: z.string().min(1).optional(),
  itemId: z.string().min(1).optional(),
});
const eventSchema = z.object({
  event: z.record(z.string(), z.unknown()).refine((event) => typeof event.type === "string", "event.type must be a string"),
  callId: z.string().min(1).optional(),
});

function parse<T>(schema: z.ZodType<T>, call: RouteCall): T | undefined {
  const result = schema.safeParse(call.body.kind === "empty" ? {} : call.body.value);
  if (result.success) return result.data;
  sendJson(call.response, 400, { ok: false, error: "invalid_request", issues: result.error.issues.map((i) => i.message) });
  return undefined;
}

const NO_SIDEBAND = { ok: false, error: "no_open_sideband" };

/** `/__mock/codex/*`; returns false when the route is not one of these. */
export function handleCodexControl(controls: MockCodexControls, call: RouteCall, route: string): boolean {
  switch (route) {
    case "POST /codex/tool-calls": {
      const input = parse(toolCallsSchema, call);
      if (input) {
        controls.queueToolCalls(input.calls);
        sendJson(call.response, 200, { ok: true });
      }
      return true;
    }
    case "POST /codex/handoff": {
      const input = parse(handoffSchema, call);
      if (input) {
        const sent = controls.requestHandoff(input);
        sendJson(call.response, sent ? 200 : 409, sent ? { ok: true, ...sent } : NO_SIDEBAND);
      }
      return true;
    }
    case "POST /codex/handoff/transcript": {
      const input = parse(z.object({ callId: z.string().min(1).optional() }), call);
      if (input) {
        const released = controls.releaseTranscript(input.callId);
        sendJson(call.response, released ? 200 : 409, released ? { ok: true } : { ok: false, error: "no_held_transcript" });
      }
      return true;
    }
    case "POST /codex/sideband-event": {
      const input = parse(eventSchema, call);
      if (input) {
        const sent = controls.sendSidebandEvent(input.event, input.callId);
        sendJson(call.response, sent ? 200 : 409, sent ? { ok: true } : NO_SIDEBAND);
      }
      return true;
    }
    case "GET /codex/sidebands":
      sendJson(call.response, 200, { callIds: controls.openSidebands() });
      return true;
    default:
      return false;
  }
}
