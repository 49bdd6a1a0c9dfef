/** Public types of the mock upstream (re-exported by server.ts). */
import type { MockCodexControls } from "./codex";
import type { MockSiwcControls } from "./siwc";
import type { VoiceCallInfo } from "./voice/peer";

export type { VoiceCallInfo, VoiceCallState, VoiceTransport } from "./voice/peer";

export interface MockUpstreamOptions {
  /** 0 = random free port (default 0). */
  port?: number;
  /** Default "127.0.0.1". */
  host?: string;
  /** Lifetime of minted access tokens, default 3600. */
  accessTokenTtlSeconds?: number;
  /** Lifetime of a device code, default 900 (15 minutes, like upstream). */
  deviceCodeTtlSeconds?: number;
  /** Poll interval announced by /usercode, default 5 (sent as the string "5"). */
  pollIntervalSeconds?: number;
  /** Delay between SSE text deltas, default 25. */
  streamChunkDelayMs?: number;
  /** /models without client_version, or with an older one, answers {models: []}. Default "0.150.0". */
  minClientVersion?: string;
  /**
   * Addition: answer 429 `slow_down` when a device code is polled faster than the interval
   * (with one second of slack). Default false so tests that poll quickly stay deterministic.
   */
  enforcePollInterval?: boolean;
  /**
   * Addition, for the demo: as soon as codex has set up a realtime sideband, the voice side asks
   * for work by itself (a handoff whose turn calls get_current_time, then save_note). Default false.
   */
  codexAutoHandoff?: boolean;
  /** Voice calls: time per spoken word of the mock's replies (at least 900 ms of speech per reply), default 180. */
  voiceWordMs?: number;
}

export type ResolvedMockOptions = Required<MockUpstreamOptions>;

export const DEFAULT_MOCK_OPTIONS: ResolvedMockOptions = {
  port: 0,
  host: "127.0.0.1",
  accessTokenTtlSeconds: 3600,
  deviceCodeTtlSeconds: 900,
  pollIntervalSeconds: 5,
  streamChunkDelayMs: 25,
  minClientVersion: "0.150.0",
  enforcePollInterval: false,
  codexAutoHandoff: false,
  voiceWordMs: 180,
};

export interface MockAccount {
  accountId: string;
  email: string;
  plan: string;
  userId: string;
}

export const DEFAULT_ACCOUNT: MockAccount = Object.freeze({
  accountId: "acct_demo",
  email: "demo@example.com",
  plan: "plus",
  userId: "user_demo",
});

export interface RecordedRequest {
  id: number;
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** Parsed JSON, or form fields object, or text (undefined when empty). */
  body: unknown;
  receivedAt: number;
  /** The client went away before we finished answering. */
  aborted: boolean;
  /** We finished writing the reply. */
  completed: boolean;
  /** Addition: the HTTP status we answered (0 until the headers are sent). */
  status: number;
  /**
   * Addition, for `POST /backend-api/codex/responses` only: the dialect the request spoke, `lite` when
   * it carried `X-OpenAI-Internal-Codex-Responses-Lite: true`, else `plain`.
   */
  dialect?: ResponsesDialect;
}

export type ResponsesDialect = "lite" | "plain";

export const MOCK_FAULTS = [
  "server_error",
  "usage_limit",
  "cloudflare_challenge",
  "fast_tier_rejected",
  "stream_cut",
  "slow_first_byte",
  "slow_stream",
  "backend_unauthorized",
  "dead_refresh_token",
  "refresh_server_error",
  "device_code_disabled",
  "device_code_server_error",
  "realtime_non_sdp",
  "realtime_hang",
  "realtime_never_connects",
  "input_echoed",
  "realtime_session_refused",
  "realtime_model_refused",
  "edge_unavailable",
  "responses_lite_refused",
  "responses_lite_required",
] as const;

export type MockFault = (typeof MOCK_FAULTS)[number];

export interface FaultRule {
  fault: MockFault;
  /** Only requests of this account trigger (and consume) the rule. */
  accountId?: string;
  /** Default 1; 0 = until cleared. */
  times?: number;
  /** For slow_first_byte: delay before the headers, default 1500. For slow_stream: the pause between chunks, default 250. */
  delayMs?: number;
}

export interface MockUpstream {
  url: string;
  /** = url */
  issuer: string;
  /** `${url}/backend-api/codex` */
  codexBaseUrl: string;
  /** `${url}/codex/device` */
  verificationUrl: string;
  /** Sign in with ChatGPT: the issuer, `${url}/siwc` (discovery at `${siwcIssuer}/.well-known/openid-configuration`). */
  siwcIssuer: string;
  /** Sign in with ChatGPT: the API base, `${url}/siwc/v1` (/models, /responses). */
  siwcApiBase: string;
  approve(userCode: string, account?: Partial<MockAccount>): boolean;
  deny(userCode: string): boolean;
  expire(userCode: string): boolean;
  addFault(rule: FaultRule): void;
  clearFaults(): void;
  /** path = exact pathname, e.g. "/oauth/token". */
  requests(filter?: { path?: string }): RecordedRequest[];
  /** Resolves on an existing or future match. */
  waitForRequest(predicate: (r: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  /** Resolves when a /responses stream is (or already was) aborted by the client. */
  waitForAbort(timeoutMs?: number): Promise<RecordedRequest>;
  /** Voice calls answered by the mock's WebRTC peer (live and ended), optionally of one account. */
  voiceCalls(filter?: { accountId?: string }): VoiceCallInfo[];
  /** Resolves when a voice call is (or becomes) in a state that matches. */
  waitForVoiceCall(predicate: (call: VoiceCallInfo) => boolean, timeoutMs?: number): Promise<VoiceCallInfo>;
  setOptions(patch: Partial<MockUpstreamOptions>): void;
  /** Controls for the codex executable's traffic: scripted tool calls, sideband cues. */
  codex: MockCodexControls;
  /** Controls for the Sign in with ChatGPT part: settings, switches, state, clock. */
  siwc: MockSiwcControls;
  reset(): void;
  close(): Promise<void>;
}
