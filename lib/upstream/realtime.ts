import "server-only";
/**
 * The realtime voice signaling calls on the wire: the browser's WebRTC offer goes to the provider
 * and its answer SDP comes back. Two private transports (they can change without notice):
 * - `codex`: the Codex CLI's own call, JSON `{sdp, session}` to `{codexBaseUrl}/realtime/calls`.
 * - `wm` / `vp` / `vps`: the ChatGPT web voice, multipart `sdp` + `session` to
 *   `{chatgptUrl}/realtime/{transport}`.
 */
import { ProviderAuthError } from "./errors";
import { readBoundedText } from "./http";
import type { BackendAuth, UpstreamConfig } from "./types";

export const REALTIME_TRANSPORTS = ["codex", "wm", "vp", "vps"] as const;
export type RealtimeTransport = (typeof REALTIME_TRANSPORTS)[number];
export type WebRealtimeTransport = Exclude<RealtimeTransport, "codex">;

/** The ChatGPT web transports' `voice_mode` values. */
export const VOICE_MODES = ["wingman", "advanced", "standard"] as const;
export type VoiceMode = (typeof VOICE_MODES)[number];

/** Each web transport's own voice mode (used when the request names none). */
export const TRANSPORT_VOICE_MODE: Record<WebRealtimeTransport, VoiceMode> = { wm: "wingman", vp: "advanced", vps: "standard" };

export const DEFAULT_CHATGPT_URL = "https://chatgpt.com";
/**
 * The voice model of the codex transport when neither the request nor `LWC_REALTIME_MODEL` names
 * one: what the pinned codex 0.171.0 sends (its DEFAULT_REALTIME_MODEL; docs/upstream.md).
 */
export const CODEX_REALTIME_MODEL = "gpt-realtime-1.5";
const CODEX_DEFAULT_VOICE = "cove";
const WEB_DEFAULT_VOICE = "juniper";
/** The web transports want a model; "auto" lets the service pick, as the ChatGPT web app does. */
const WEB_DEFAULT_MODEL = "auto";
const DEFAULT_REALTIME_INSTRUCTIONS =
  "You are a friendly voice assistant. Keep your answers short and conversational.";

/** An answer SDP is a few KB; more than this is not read. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** What the caller asked for, after validation. */
export interface RealtimeCallRequest {
  transport: RealtimeTransport;
  sdp: string;
  voice?: string;
  voiceMode?: VoiceMode;
  model?: string;
  instructions?: string;
}

type RealtimeCallResult =
  | { kind: "answer"; sdp: string }
  /** Upstream answered non-2xx; `bodyText` is bounded and must not be passed on as is. */
  | { kind: "failed"; status: number; bodyText: string }
  /** Upstream answered 2xx with something that is not an SDP (`bodyText` bounded, for a log snippet). */
  | { kind: "not_sdp"; status: number; contentType: string; bodyText: string };

export function looksLikeSdp(text: string): boolean {
  return /^\s*v=0/.test(text);
}

/** The session JSON the Codex call sends (its v1 shape); `model` when the request names none. */
export function codexSession(request: RealtimeCallRequest, model: string = CODEX_REALTIME_MODEL): Record<string, unknown> {
  return {
    type: "quicksilver",
    model: request.model ?? model,
    instructions: request.instructions ?? DEFAULT_REALTIME_INSTRUCTIONS,
    audio: {
      input: { format: { type: "audio/pcm", rate: 24_000 } },
      output: { voice: request.voice ?? CODEX_DEFAULT_VOICE },
    },
  };
}

/** The session JSON of the ChatGPT web transports. */
export function webSession(transport: WebRealtimeTransport, request: RealtimeCallRequest): Record<string, unknown> {
  const model = request.model ?? WEB_DEFAULT_MODEL;
  const voiceSessionId = crypto.randomUUID();
  return {
    voice: request.voice ?? WEB_DEFAULT_VOICE,
    voice_mode: request.voiceMode ?? TRANSPORT_VOICE_MODE[transport],
    requested_default_model: model,
    model_slug: model,
    timezone: "UTC",
    timezone_offset_min: 0,
    language_code: null,
    conversation_id: null,
    voice_session_id: voiceSessionId,
    voice_status_request_id: voiceSessionId,
    client_tools: [],
    conversation_mode: { kind: "primary_assistant" },
    // wm refuses the call when this is true; vp/vps are sent as the public client sends them.
    history_and_training_disabled: transport !== "wm",
    enable_message_streaming: true,
    ...(transport === "wm" ? { chat_mode: "chat" } : {}),
  };
}

function codexCall(
  config: UpstreamConfig,
  auth: BackendAuth,
  request: RealtimeCallRequest,
  model: string | undefined,
): { url: string; init: RequestInit } {
  const callId = crypto.randomUUID();
  const headers = new Headers({
    "content-type": "application/json",
    "openai-alpha": "quicksilver=v1",
    "x-session-id": callId,
    "session-id": callId,
    originator: config.originator,
    "user-agent": config.userAgent,
    // Codex sends its provider's headers on this call too, the version among them.
    version: config.clientVersion,
  });
  headers.set("authorization", `Bearer ${auth.accessToken}`);
  headers.set("chatgpt-account-id", auth.accountId);
  return {
    url: `${config.codexBaseUrl}/realtime/calls?intent=quicksilver&architecture=avas`,
    init: { method: "POST", headers, body: JSON.stringify({ sdp: request.sdp, session: codexSession(request, model) }) },
  };
}

function webCall(
  config: UpstreamConfig,
  chatgptUrl: string,
  transport: WebRealtimeTransport,
  auth: BackendAuth,
  request: RealtimeCallRequest,
): { url: string; init: RequestInit } {
  const origin = new URL(chatgptUrl).origin;
  const form = new FormData();
  form.set("sdp", request.sdp);
  form.set("session", JSON.stringify(webSession(transport, request)));
  const headers = new Headers({
    accept: "application/sdp",
    "oai-language": "en-US",
    "oai-device-id": crypto.randomUUID(),
    "oai-session-id": crypto.randomUUID(),
    origin,
    referer: `${origin}/`,
    "user-agent": config.userAgent,
  });
  headers.set("authorization", `Bearer ${auth.accessToken}`);
  headers.set("chatgpt-account-id", auth.accountId);
  return { url: `${chatgptUrl.replace(/\/+$/, "")}/realtime/${transport}?dcid=0`, init: { method: "POST", headers, body: form } };
}


interface RealtimeCallOptions {
  /** Origin of the ChatGPT web transports, default https://chatgpt.com. */
  chatgptUrl?: string;
  /** The codex transport's voice model when the request names none, default CODEX_REALTIME_MODEL. */
  codexModel?: string;
  /** The caller's signal: aborting it cancels the call (the abort is rethrown as is). */
  signal?: AbortSignal;
}

/**
 * Sends the offer and reads the answer, under `config.requestTimeoutMs`. A network failure or a
 * timeout throws `ProviderAuthError("network_error")` (a fixed message; the origin is in its
 * `upstreamOrigin`, for the log line).
 */
export async function postRealtimeCall(
  config: UpstreamConfig,
  auth: BackendAuth,
  request: RealtimeCallRequest,
  options: RealtimeCallOptions = {},
): Promise<RealtimeCallResult> {
  const { url, init } =
    request.transport === "codex"
      ? codexCall(config, auth, request, options.codexModel)
      : webCall(config, options.chatgptUrl ?? DEFAULT_CHATGPT_URL, request.transport, auth, request);
  const timeout = AbortSignal.timeout(config.requestTimeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const origin = new URL(url).origin;
  try {
    const response = await config.fetch(url, { ...init, signal });
    const text = await readBoundedText(response, MAX_ANSWER_BYTES);
    if (!response.ok) return { kind: "failed", status: response.status, bodyText: text };
    if (!looksLikeSdp(text)) {
      return { kind: "not_sdp", status: response.status, contentType: response.headers.get("content-type") ?? "", bodyText: text };
    }
    return { kind: "answer", sdp: text };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const what = timeout.aborted ? `did not answer within ${config.requestTimeoutMs} ms` : "could not be reached";
    throw new ProviderAuthError("network_error", `The voice service ${what}.`, { cause: error, upstreamOrigin: origin });
  }
}
