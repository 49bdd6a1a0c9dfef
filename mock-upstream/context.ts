import type { IncomingMessage, ServerResponse } from "node:http";
import type { DeviceFlow } from "./device-flow";
import type { FaultBook } from "./faults";
import type { CodexMockState } from "./codex";
import type { ParsedBody } from "./http-util";
import type { RequestRecorder } from "./recorder";
import type { TokenAuthority } from "./tokens";
import type { VoiceCalls } from "./voice/calls";
import type { RecordedRequest, ResolvedMockOptions } from "./types";

export const MOCK_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";

/** Everything a route needs: the mock's state and options. */
export interface MockContext {
  issuer: string;
  options: ResolvedMockOptions;
  recorder: RequestRecorder;
  faults: FaultBook;
  tokens: TokenAuthority;
  devices: DeviceFlow;
  /** Successful /responses per account: drives the usage headers. */
  responsesServed: Map<string, number>;
  /** Scripted turns and realtime sidebands for the codex executable. */
  codex: CodexMockState;
  /** Voice calls answered by the WebRTC peer. */
  voiceCalls: VoiceCalls;
}

export interface RouteCall {
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
  body: ParsedBody;
  record: RecordedRequest | undefined;
  /** Set by a route that cut the connection on purpose (not a client abort). */
  markServerCut(): void;
}

export type RouteHandler = (context: MockContext, call: RouteCall) => void | Promise<void>;
