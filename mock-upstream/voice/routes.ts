/**
 * The voice signaling routes: the Codex WebRTC call (JSON) and the ChatGPT web transports
 * (multipart). Each answers a browser offer with a real answer SDP from a VoicePeer.
 */
import { authenticateBackendCall, claimedAccountId, sendUnauthorized } from "../backend-auth";
import { sendModelFieldRefused, sendServerError, sendSessionFieldRefused } from "../backend-errors";
import type { MockContext, RouteCall, RouteHandler } from "../context";
import { markerFaults } from "../faults";
import { isRecord, sendJson, sendText } from "../http-util";
import type { FaultRule, MockFault } from "../types";
import type { VoiceTransport } from "./peer";
import { hasMediaSection, looksLikeSdp } from "./sdp";

export const CODEX_CALLS_PATH = "/backend-api/codex/realtime/calls";
export const WEB_VOICE_PATHS = { wm: "/realtime/wm", vp: "/realtime/vp", vps: "/realtime/vps" } as const;

interface Offer {
  sdp: string;
  session: Record<string, unknown>;
}

function sendBadRequest(call: RouteCall, message: string): void {
  sendJson(call.response, 400, { error: { message, type: "invalid_request_error", code: "invalid_request", param: null } });
}

function codexOffer(call: RouteCall): Offer | string {
  const body = call.body.value;
  if (call.body.kind !== "json" || !isRecord(body)) return "The body must be JSON {sdp, session}.";
  if (typeof body.sdp !== "string" || !looksLikeSdp(body.sdp)) return "sdp must be an SDP offer.";
  if (!hasMediaSection(body.sdp)) return "The offer has no media section.";
  if (body.session !== undefined && !isRecord(body.session)) return "session must be an object.";
  return { sdp: body.sdp, session: (body.session as Record<string, unknown> | undefined) ?? {} };
}

function webOffer(call: RouteCall): Offer | string {
  const fields = call.body.value;
  if (call.body.kind !== "multipart" || !isRecord(fields)) return "The body must be multipart/form-data with sdp and session.";
  if (typeof fields.sdp !== "string" || !looksLikeSdp(fields.sdp)) return "sdp must be an SDP offer.";
  let session: unknown = {};
  if (typeof fields.session === "string") {
    try {
      session = JSON.parse(fields.session);
    } catch {
      return "session must be JSON.";
    }
  }
  if (!isRecord(session)) return "session must be a JSON object.";
  return { sdp: fields.sdp, session };
}

/** Everything but the faults and the peer is transport specific. */
async function answerCall(context: MockContext, call: RouteCall, transport: VoiceTransport, offer: Offer | string): Promise<void> {
  const markers = markerFaults(JSON.stringify(isRecord(call.body.value) ? call.body.value : {}));
  const fires = (fault: MockFault, accountId: string | undefined): FaultRule | undefined =>
    markers.has(fault) ? { fault } : context.faults.take(fault, accountId);
  const claimed = claimedAccountId(context, call);

  if (fires("realtime_hang", claimed)) {
    // Never answer: the caller's timeout is what is being tested. Ends when the client goes away.
    await new Promise<void>((resolve) => call.response.once("close", resolve));
    return;
  }
  const caller = authenticateBackendCall(context, call);
  if (!caller) return;
  if (fires("backend_unauthorized", caller.accountId)) {
    return sendUnauthorized(call, "Provided authentication token is expired. Please try signing in again.", "token_expired");
  }
  if (fires("server_error", caller.accountId)) return sendServerError(call);
  if (typeof offer === "string") return sendBadRequest(call, offer);
  if (fires("realtime_session_refused", caller.accountId)) return sendSessionFieldRefused(call, offer.session);
  // Only a session that names a model is refused (and consumes the rule), as the backend refused the field.
  if (offer.session.model !== undefined && fires("realtime_model_refused", caller.accountId)) return sendModelFieldRefused(call);
  if (fires("realtime_non_sdp", caller.accountId)) {
    return sendText(call.response, 200, "text/html; charset=utf-8", "<!DOCTYPE html><html><body>Voice is unavailable right now.</body></html>");
  }

  const peer = context.voiceCalls.create({
    transport,
    accountId: caller.accountId,
    session: offer.session,
    wordMs: context.options.voiceWordMs,
    neverConnects: fires("realtime_never_connects", caller.accountId) !== undefined,
  });
  let answer: string;
  try {
    answer = await peer.answer(offer.sdp);
  } catch {
    peer.close();
    return sendBadRequest(call, "The offer could not be answered.");
  }
  // The caller gave up while we answered: nobody will connect to this peer.
  if (call.response.destroyed) return peer.close();
  sendText(call.response, 201, "application/sdp", answer, { location: `/v1/realtime/calls/${peer.info.id}` });
}

/** POST /backend-api/codex/realtime/calls (JSON `{sdp, session}`) */
export const handleCodexCall: RouteHandler = (context, call) => answerCall(context, call, "codex", codexOffer(call));

/** POST /realtime/{wm,vp,vps} (multipart `sdp` + `session`) */
export function webVoiceHandler(transport: Exclude<VoiceTransport, "codex">): RouteHandler {
  return (context, call) => answerCall(context, call, transport, webOffer(call));
}
