import { normalizeBasePath } from "@/lib/shared/base-path";
import {
  parseServerEvent,
  typedMessageEvents,
  unwrapWebEvent,
  WEB_VOICE_TRANSPORTS,
  webTypedMessageEvent,
  wrapWebEvent,
  type RealtimeServerEvent,
} from "./realtime-events";
import { createLevelMeter, type LevelMeter } from "./realtime-levels";
import { isRealtimeError, microphoneError, RealtimeError, realtimeErrorFromResponse } from "./realtime-error";

/** The optional `session` object of `POST {basePath}/realtime`; the server applies its defaults. */
export interface RealtimeSessionOptions {
  voice?: string;
  /** `codex` (the server's default) or one of the ChatGPT web transports the server allows. */
  transport?: string;
  voiceMode?: string;
  [field: string]: unknown;
}

/**
 * - `connecting`: microphone, offer, our route, then ICE and DTLS.
 * - `connected`: media flows and the data channel is open.
 * - `reconnecting`: the network hiccuped (ICE `disconnected`); the browser tries to recover.
 * - `ended`: hung up, on either side.
 * - `failed`: could not connect or the connection was lost (the error says which).
 */
export type RealtimeCallState = "connecting" | "connected" | "reconnecting" | "ended" | "failed";

export interface ConnectRealtimeOptions {
  /** Where the session service is mounted (default `/api/provider`); the call goes to `{basePath}/realtime`. */
  basePath?: string;
  /** The full URL of the realtime route, instead of `basePath`. */
  url?: string;
  session?: RealtimeSessionOptions;
  /**
   * The microphone: constraints for getUserMedia (default `{audio: true}` style constraints), or a
   * MediaStream you opened yourself (you then stop its tracks; the call only stops what it opened).
   */
  microphone?: MediaTrackConstraints | MediaStream;
  /** Every JSON event from the data channel (already unwrapped on the web transports). */
  onEvent?: (event: RealtimeServerEvent) => void;
  /** Every state change after `connecting`; `error` is set with `failed`. */
  onState?: (state: RealtimeCallState, error?: RealtimeError) => void;
  /** Aborting before the call is connected cancels it and releases the microphone. */
  signal?: AbortSignal;
  /**
   * Trades the offer for the answer SDP instead of `POST {url}` (agent voice posts to
   * `/realtime/app-server`, which answers JSON). Throw a RealtimeError to fail the call.
   */
  exchangeOffer?: (sdp: string, signal: AbortSignal) => Promise<string>;
  /** How long ICE and DTLS may take after the answer (default 15 s). */
  connectTimeoutMs?: number;
  fetch?: typeof fetch;
}

export interface RealtimeCall {
  readonly state: RealtimeCallState;
  readonly peerConnection: RTCPeerConnection;
  readonly dataChannel: RTCDataChannel;
  /** The microphone stream being sent. */
  readonly microphone: MediaStream;
  /** The assistant's audio, attached to `audioElement` (which plays it). */
  readonly remoteStream: MediaStream;
  readonly audioElement: HTMLAudioElement;
  readonly muted: boolean;
  /** Muted: the microphone track is disabled and removed from the sender, so no audio leaves the browser. */
  setMuted(muted: boolean): Promise<void>;
  /** Sends one client event (JSON) over the data channel (wrapped as `data_message` on the web transports). */
  send(event: Record<string, unknown>): void;
  /** Types to the assistant: adds a user message and asks for a (spoken) response (`relay_message` on the web transports). */
  sendText(text: string): void;
  /** Current loudness of both sides, 0 to about 1 (RMS). */
  levels(): { microphone: number; assistant: number };
  /** Ends the call: stops the microphone tracks it opened, closes the data channel and the peer connection. */
  hangUp(): void;
}

const DATA_CHANNEL_LABEL = "oai-events";
const ICE_GATHERING_TIMEOUT_MS = 5_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;

function browserSupportsCalls(): boolean {
  return (
    typeof RTCPeerConnection !== "undefined" &&
    typeof navigator !== "undefined" &&
    typeof navigator.mediaDevices?.getUserMedia === "function"
  );
}

async function openMicrophone(microphone: ConnectRealtimeOptions["microphone"]): Promise<{ stream: MediaStream; owned: boolean }> {
  if (microphone instanceof MediaStream) return { stream: microphone, owned: false };
  try {
    const audio = microphone ?? { echoCancellation: true, noiseSuppression: true, autoGainControl: true };
    return { stream: await navigator.mediaDevices.getUserMedia({ audio }), owned: true };
  } catch (error) {
    throw microphoneError(error);
  }
}

/** Resolves once the browser has gathered all its candidates, so the offer carries them (no trickle ICE). */
function iceGatheringComplete(pc: RTCPeerConnection): Promise<void> {
  if (pc.iceGatheringState === "complete") return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      pc.removeEventListener("icegatheringstatechange", onChange);
      resolve();
    };
    const onChange = () => {
      if (pc.iceGatheringState === "complete") done();
    };
    // Gathering that hangs (an unreachable interface) should not block the call: send what we have.
    const timer = setTimeout(done, ICE_GATHERING_TIMEOUT_MS);
    pc.addEventListener("icegatheringstatechange", onChange);
  });
}

function abortedError(): RealtimeError {
  return new RealtimeError({ code: "aborted", message: "The call was cancelled before it connected." });
}

/**
 * Starts a voice call through our `/realtime` route: opens the microphone, makes a WebRTC offer
 * (no STUN: `iceServers: []`), POSTs `{sdp, session}` with the session cookie, applies the answer
 * and resolves once audio flows and the `oai-events` data channel is open. Rejects with a
 * RealtimeError (see its codes); everything opened so far is released before it rejects.
 * Leaving the page (pagehide) hangs up.
 */
export async function connectRealtime(options: ConnectRealtimeOptions = {}): Promise<RealtimeCall> {
  if (!browserSupportsCalls()) {
    throw new RealtimeError({ code: "unsupported_browser", message: "This browser cannot make WebRTC calls from this page." });
  }
  const url = options.url ?? `${normalizeBasePath(options.basePath)}/realtime`;
  const fetchImpl = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const { signal } = options;
  if (signal?.aborted) throw abortedError();

  const mic = await openMicrophone(options.microphone);
  const track = mic.stream.getAudioTracks()[0];
  if (!track) {
    if (mic.owned) mic.stream.getTracks().forEach((t) => t.stop());
    throw new RealtimeError({ code: "microphone_unavailable", message: "The microphone stream has no audio track." });
  }

  // The ChatGPT web transports expect a pre-negotiated channel (id 0, no label), wrapped events and
  // an inert video m-line; the Codex call (the default) a plain `oai-events` channel.
  const web = WEB_VOICE_TRANSPORTS.has(options.session?.transport ?? "");
  const pc = new RTCPeerConnection(web ? { iceServers: [], bundlePolicy: "max-bundle" } : { iceServers: [] });
  const sender = pc.addTransceiver(track, { direction: "sendrecv", streams: [mic.stream] }).sender;
  const dataChannel = web ? pc.createDataChannel("", { negotiated: true, id: 0 }) : pc.createDataChannel(DATA_CHANNEL_LABEL);
  if (web) pc.addTransceiver("video", { direction: "sendonly" });
  const remoteStream = new MediaStream();
  const audioElement = document.createElement("audio");
  audioElement.autoplay = true;
  const context = new AudioContext();
  const microphoneMeter = createLevelMeter(context, mic.stream);
  let assistantMeter: LevelMeter | undefined;

  let state: RealtimeCallState = "connecting";
  let muted = false;
  let released = false;
  const fetchAbort = new AbortController();

  const release = () => {
    if (released) return;
    released = true;
    window.removeEventListener("pagehide", hangUp);
    signal?.removeEventListener("abort", onAbort);
    fetchAbort.abort();
    if (mic.owned) mic.stream.getTracks().forEach((t) => t.stop());
    dataChannel.close();
    pc.close();
    audioElement.pause();
    audioElement.srcObject = null;
    microphoneMeter.close();
    assistantMeter?.close();
    void context.close().catch(() => undefined);
  };

  const setState = (next: RealtimeCallState, error?: RealtimeError) => {
    if (state === next || state === "ended" || state === "failed") return;
    state = next;
    if (next === "ended" || next === "failed") release();
    options.onState?.(next, error);
  };

  function hangUp() {
    if (settleConnect) failConnect(abortedError());
    else setState("ended");
    release();
  }

  // Until connected, failures reject the returned promise; afterwards they go to onState.
  let settleConnect: { resolve: () => void; reject: (error: RealtimeError) => void } | undefined;
  const connected = new Promise<void>((resolve, reject) => (settleConnect = { resolve, reject }));
  connected.catch(() => undefined); // handled by the `await connected` below; this keeps it from counting as unhandled
  const failConnect = (error: RealtimeError) => {
    if (!settleConnect) return;
    const { reject } = settleConnect;
    settleConnect = undefined;
    release();
    state = "failed";
    reject(error);
  };
  const onAbort = () => failConnect(abortedError());
  signal?.addEventListener("abort", onAbort);
  window.addEventListener("pagehide", hangUp);

  const checkConnected = () => {
    if (pc.connectionState !== "connected" || dataChannel.readyState !== "open") return;
    if (settleConnect) {
      const { resolve } = settleConnect;
      settleConnect = undefined;
      state = "connected";
      resolve();
    } else {
      setState("connected");
    }
  };

  pc.addEventListener("track", (event) => {
    if (event.track.kind !== "audio") return;
    remoteStream.addTrack(event.track);
    // Attached before the meter: without a media element Chromium does not decode remote audio.
    audioElement.srcObject = remoteStream;
    void audioElement.play().catch(() => undefined);
    assistantMeter ??= createLevelMeter(context, remoteStream);
  });
  pc.addEventListener("connectionstatechange", () => {
    if (released) return;
    if (pc.connectionState === "connected") checkConnected();
    else if (pc.connectionState === "disconnected" && !settleConnect) setState("reconnecting");
    else if (pc.connectionState === "failed") {
      if (settleConnect) failConnect(new RealtimeError({ code: "connection_failed", message: "The media connection could not be established." }));
      else setState("failed", new RealtimeError({ code: "connection_lost", message: "The media connection was lost." }));
    }
  });
  dataChannel.addEventListener("open", checkConnected);
  dataChannel.addEventListener("close", () => {
    if (released) return;
    // The service closing the channel ends the call.
    if (settleConnect) failConnect(new RealtimeError({ code: "connection_failed", message: "The service closed the call while it was starting." }));
    else setState("ended");
  });
  dataChannel.addEventListener("message", (message) => {
    const event = parseServerEvent(message.data);
    if (event) options.onEvent?.(web ? unwrapWebEvent(event) : event);
  });

  try {
    await pc.setLocalDescription(await pc.createOffer());
    await iceGatheringComplete(pc);
    if (released) throw abortedError();
    const offer = pc.localDescription?.sdp ?? "";
    const answer = options.exchangeOffer
      ? await options.exchangeOffer(offer, fetchAbort.signal)
      : await postOffer(fetchImpl, url, offer, options.session, fetchAbort.signal);
    if (released) throw abortedError();
    await pc.setRemoteDescription({ type: "answer", sdp: answer });
    const timeout = setTimeout(
      () => failConnect(new RealtimeError({ code: "connection_failed", message: "The media connection did not come up in time." })),
      options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    );
    void connected.finally(() => clearTimeout(timeout)).catch(() => undefined);
    void context.resume().catch(() => undefined);
  } catch (error) {
    const failure = released && !isRealtimeError(error) ? abortedError() : toRealtimeError(error);
    failConnect(failure);
  }
  await connected;

  const send = (event: Record<string, unknown>) => {
    if (dataChannel.readyState !== "open") throw new RealtimeError({ code: "connection_lost", message: "The call's data channel is not open." });
    dataChannel.send(JSON.stringify(web ? wrapWebEvent(event) : event));
  };

  return {
    get state() {
      return state;
    },
    peerConnection: pc,
    dataChannel,
    microphone: mic.stream,
    remoteStream,
    audioElement,
    get muted() {
      return muted;
    },
    async setMuted(next: boolean) {
      muted = next;
      track.enabled = !next;
      await sender.replaceTrack(next ? null : track);
    },
    send,
    sendText(text) {
      if (web) send(webTypedMessageEvent(text));
      else for (const event of typedMessageEvents(text)) send(event);
    },
    levels() {
      if (released) return { microphone: 0, assistant: 0 };
      return { microphone: muted ? 0 : microphoneMeter.read(), assistant: assistantMeter?.read() ?? 0 };
    },
    hangUp,
  };
}

function toRealtimeError(error: unknown): RealtimeError {
  if (isRealtimeError(error)) return error;
  return new RealtimeError({ code: "connection_failed", message: "The call could not be set up.", cause: error });
}

/** POSTs the offer to our route and returns the answer SDP, or throws the route's error as a RealtimeError. */
async function postOffer(
  fetchImpl: typeof fetch,
  url: string,
  sdp: string,
  session: RealtimeSessionOptions | undefined,
  signal: AbortSignal,
): Promise<string> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: "POST",
      credentials: "include",
      headers: { "content-type": "application/json", accept: "application/sdp" },
      body: JSON.stringify(session ? { sdp, session } : { sdp }),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw abortedError();
    throw new RealtimeError({ code: "network_error", message: "The voice route could not be reached.", cause: error });
  }
  if (!response.ok) throw await realtimeErrorFromResponse(response);
  const answer = await response.text();
  if (!/^\s*v=0/.test(answer)) {
    throw new RealtimeError({ code: "realtime_request_failed", status: 502, message: "The voice route did not answer with an SDP." });
  }
  return answer;
}
