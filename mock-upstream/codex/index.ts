import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { MockContext, RouteHandler } from "../context";
import { lowerCaseHeaders } from "../http-util";
import { SIDEBAND_PATH, Sidebands, type HandoffCue, type HandoffSent } from "./sideband";
import { TurnScripts, type ScriptedToolCall } from "./turn-scripts";
import { handleAccountsCheck, handleUserSettings } from "./wham";

export { SIDEBAND_IN, SIDEBAND_OUT, SIDEBAND_PATH } from "./sideband";

const RESPONSES_PATH = "/backend-api/codex/responses";

/**
 * The routes only the `codex` executable needs (workspace routing, per-turn settings). Its realtime
 * call (`POST /backend-api/codex/realtime/calls`) is answered by the mock's voice peer.
 */
export const CODEX_ROUTES: Record<string, RouteHandler> = {
  "GET /backend-api/wham/accounts/check": handleAccountsCheck,
  "GET /backend-api/wham/settings/user": handleUserSettings,
};

/** Test controls for the codex parts (also under /__mock/codex/). */
export interface MockCodexControls {
  /** The function calls the mock model makes in the next turn, one per request, then a final message. */
  queueToolCalls(calls: ScriptedToolCall[]): void;
  /** Sends the user's transcript and `conversation.handoff.requested` on a sideband; undefined if none is open. */
  requestHandoff(cue: HandoffCue): HandoffSent | undefined;
  /** Sends the words of a request cued with `transcriptHeld`; false when none is held. */
  releaseTranscript(callId?: string): boolean;
  /** Sends any event on a sideband (default: the newest); false if none is open. */
  sendSidebandEvent(event: Record<string, unknown>, callId?: string): boolean;
  /** call ids of the open sidebands, oldest first. */
  openSidebands(): string[];
}

/** What the demo's voice side asks for by itself (option `codexAutoHandoff`). */
export const AUTO_HANDOFF = {
  transcript: "What time is it? And please save a note: buy milk.",
  calls: [
    { name: "get_current_time", arguments: {} },
    { name: "save_note", arguments: { text: "Buy milk" } },
  ] satisfies ScriptedToolCall[],
};

/** The mock's state for the codex executable: scripted turns and open sidebands. */
export class CodexMockState {
  readonly scripts = new TurnScripts();
  readonly sidebands: Sidebands;

  constructor(private readonly context: MockContext) {
    this.sidebands = new Sidebands(context, (callId) => {
      if (!this.context.options.codexAutoHandoff) return;
      this.scripts.queue(AUTO_HANDOFF.calls);
      this.sidebands.requestHandoff({ transcript: AUTO_HANDOFF.transcript, callId });
    });
  }

  readonly controls: MockCodexControls = {
    queueToolCalls: (calls) => this.scripts.queue(calls),
    requestHandoff: (cue) => this.sidebands.requestHandoff(cue),
    releaseTranscript: (callId) => this.sidebands.releaseTranscript(callId),
    sendSidebandEvent: (event, callId) => this.sidebands.send(event, callId),
    openSidebands: () => this.sidebands.callIds(),
  };

  /**
   * WebSocket upgrades: codex tries a WebSocket for /responses first and falls back to SSE on 426;
   * the sideband is accepted; anything else is 404.
   */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, issuer: string): void {
    const url = new URL(request.url ?? "/", issuer);
    if (url.pathname === SIDEBAND_PATH) return this.sidebands.handleUpgrade(request, socket, head, url);
    const record = this.context.recorder.record({
      method: "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: lowerCaseHeaders(request),
      body: undefined,
      receivedAt: Date.now(),
    });
    this.context.recorder.update(record, { status: url.pathname === RESPONSES_PATH ? 426 : 404, completed: true });
    const status = url.pathname === RESPONSES_PATH ? "426 Upgrade Required" : "404 Not Found";
    const body = JSON.stringify({ detail: url.pathname === RESPONSES_PATH ? "Use HTTPS streaming for this endpoint." : "Not Found" });
    socket.end(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  }

  reset(): void {
    this.scripts.clear();
  }

  close(): void {
    this.sidebands.closeAll();
  }
}
