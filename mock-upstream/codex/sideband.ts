import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import type { MockContext } from "../context";
import { lowerCaseHeaders } from "../http-util";

/** Where codex opens the realtime sideband when `experimental_realtime_ws_base_url` is the mock's origin. */
export const SIDEBAND_PATH = "/v1/realtime";

/** Recorded methods for sideband frames: WS_IN = sent by codex, WS_OUT = sent by the mock. */
export const SIDEBAND_IN = "WS_IN";
export const SIDEBAND_OUT = "WS_OUT";

export interface HandoffCue {
  transcript: string;
  /**
   * The call's own data channel (the browser's) hears the request as a spoken user turn at once;
   * true keeps its words back until `releaseTranscript`, as a transcription that arrives after the
   * agent already acted on the request.
   */
  transcriptHeld?: boolean;
  /** Default: the most recently opened sideband. */
  callId?: string;
  handoffId?: string;
  itemId?: string;
}

export interface HandoffSent {
  callId: string;
  handoffId: string;
  itemId: string;
}

function refuseUpgrade(socket: Duplex, status: number, reason: string, body: unknown): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

/**
 * The realtime sideband WebSocket codex opens after the WebRTC call is answered. Records every
 * frame both ways; a test cues the voice side's events (transcripts, a handoff request).
 */
export class Sidebands {
  private readonly server = new WebSocketServer({ noServer: true });
  /** callId -> socket, in the order they opened. */
  private readonly open = new Map<string, WebSocket>();
  /** callId -> what sends the words of a request whose transcription is held back. */
  private readonly heldTranscripts = new Map<string, () => void>();

  constructor(
    private readonly context: MockContext,
    /** Called when codex has sent `session.update` on a sideband (the session is set up). */
    private readonly onSessionUpdate: (callId: string) => void = () => undefined,
  ) {}

  callIds(): string[] {
    return [...this.open.keys()];
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
    const record = this.context.recorder.record({
      method: "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: lowerCaseHeaders(request),
      body: undefined,
      receivedAt: Date.now(),
    });
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "");
    const verified = match ? this.context.tokens.verifyAccessToken(match[1]!) : undefined;
    if (!verified?.ok) {
      this.context.recorder.update(record, { status: 401, completed: true });
      return refuseUpgrade(socket, 401, "Unauthorized", { error: { message: "Missing or invalid bearer authentication.", type: "invalid_request_error" } });
    }
    const callId = url.searchParams.get("call_id");
    if (!callId) {
      this.context.recorder.update(record, { status: 400, completed: true });
      return refuseUpgrade(socket, 400, "Bad Request", { error: { message: "Missing call_id.", type: "invalid_request_error" } });
    }
    this.server.handleUpgrade(request, socket, head, (ws) => {
      this.context.recorder.update(record, { status: 101, completed: true });
      this.open.set(callId, ws);
      ws.on("message", (data, isBinary) => {
        const body = this.recordFrame(SIDEBAND_IN, callId, isBinary ? "<binary>" : data.toString());
        if ((body as { type?: unknown } | undefined)?.type === "session.update") this.onSessionUpdate(callId);
      });
      ws.on("close", () => {
        if (this.open.get(callId) === ws) this.open.delete(callId);
      });
    });
  }

  /** Send one event to codex; false when no such sideband is open. */
  send(event: Record<string, unknown>, callId?: string): boolean {
    const id = callId ?? this.callIds().at(-1);
    const ws = id === undefined ? undefined : this.open.get(id);
    if (!ws || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(JSON.stringify(event));
    this.recordFrame(SIDEBAND_OUT, id!, JSON.stringify(event));
    return true;
  }

  /** What the voice model does when the person asks for work: the user's transcript, then the handoff. */
  requestHandoff(cue: HandoffCue): HandoffSent | undefined {
    const callId = cue.callId ?? this.callIds().at(-1);
    if (callId === undefined || !this.open.has(callId)) return undefined;
    const handoffId = cue.handoffId ?? `handoff_${randomBytes(6).toString("hex")}`;
    const itemId = cue.itemId ?? `item_${randomBytes(6).toString("hex")}`;
    // The person said it into the call: the browser's data channel hears the turn before the agent does.
    const transcribe = this.context.voiceCalls.peer(callId)?.personSays(cue.transcript);
    if (transcribe && cue.transcriptHeld) this.heldTranscripts.set(callId, transcribe);
    else transcribe?.();
    this.send({ type: "conversation.input_transcript.delta", delta: cue.transcript }, callId);
    this.send({ type: "conversation.input_transcript.turn_marked", transcript: cue.transcript }, callId);
    const sent = this.send({ type: "conversation.handoff.requested", handoff_id: handoffId, item_id: itemId, input_transcript: cue.transcript }, callId);
    return sent ? { callId, handoffId, itemId } : undefined;
  }

  /** Sends the words of the call's held request (see HandoffCue.transcriptHeld); false when none is held. */
  releaseTranscript(callId?: string): boolean {
    const id = callId ?? this.callIds().at(-1);
    const transcribe = id === undefined ? undefined : this.heldTranscripts.get(id);
    if (!transcribe) return false;
    this.heldTranscripts.delete(id!);
    transcribe();
    return true;
  }

  closeAll(): void {
    this.heldTranscripts.clear();
    for (const ws of this.open.values()) ws.terminate();
    this.open.clear();
  }

  private recordFrame(method: string, callId: string, text: string): unknown {
    let body: unknown = text;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      // Keep non-JSON frames as text.
    }
    const record = this.context.recorder.record({
      method,
      path: SIDEBAND_PATH,
      query: { call_id: callId },
      headers: {},
      body,
      receivedAt: Date.now(),
    });
    this.context.recorder.update(record, { completed: true });
    return body;
  }
}
