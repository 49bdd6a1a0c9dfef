import { randomBytes } from "node:crypto";
import { authenticateBackendCall } from "../backend-auth";
import type { RouteHandler } from "../context";
import { isRecord, sendJson, sendText } from "../http-util";

/**
 * A fixed answer SDP: codex forwards the answer without checking it, so the real-binary tests need
 * no media peer. The voice peer's own route (when present) is registered first and wins.
 */
export const STATIC_ANSWER_SDP = [
  "v=0",
  "o=- 0 0 IN IP4 127.0.0.1",
  "s=mock-upstream static answer",
  "t=0 0",
  "a=group:BUNDLE 0",
  "m=audio 9 UDP/TLS/RTP/SAVPF 111",
  "c=IN IP4 127.0.0.1",
  "a=mid:0",
  "a=recvonly",
  "a=rtpmap:111 opus/48000/2",
  "",
].join("\r\n");

/** POST /backend-api/codex/realtime/calls (JSON {sdp, session}): 201 + SDP + Location …/rtc_<id>. */
export const handleStaticRealtimeCall: RouteHandler = (context, call) => {
  const caller = authenticateBackendCall(context, call);
  if (!caller) return;
  const body = call.body.value;
  if (call.body.kind !== "json" || !isRecord(body) || typeof body.sdp !== "string" || body.sdp.length === 0) {
    return sendJson(call.response, 400, { error: { message: "Expected a JSON body with sdp and session.", type: "invalid_request_error" } });
  }
  const callId = `rtc_${randomBytes(12).toString("hex")}`;
  sendText(call.response, 201, "application/sdp", STATIC_ANSWER_SDP, { location: `${call.url.pathname}/${callId}` });
};
