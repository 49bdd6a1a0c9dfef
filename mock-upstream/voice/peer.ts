/**
 * One mock voice call: a werift peer that answers the browser's offer from 127.0.0.1 only, talks
 * only to addresses of this machine, speaks a PCMU tone while the conversation says so, and
 * measures what the browser sends.
 */
import { Conversation, type RealtimeEvent } from "./conversation";
import { mulawRms } from "./mulaw";
import { isMachineAddress, machineAddresses } from "./machine-addresses";
import { machineCandidatesOnly } from "./sdp";
import { FRAME_MS, SAMPLES_PER_FRAME, SILENT_FRAME, VoiceTone } from "./tone";
import { werift, type Werift } from "./werift";

export type VoiceTransport = "codex" | "wm" | "vp" | "vps";
export type VoiceCallState = "new" | "connected" | "closed";

/** What the control API shows about a call. */
export interface VoiceCallInfo {
  id: string;
  transport: VoiceTransport;
  accountId: string;
  /** The session JSON the call was made with. */
  session: unknown;
  state: VoiceCallState;
  createdAt: number;
  connectedAt: number | null;
  closedAt: number | null;
  /** The browser address the call's media goes to (an address of this machine), once connected. */
  browserAddress: string | null;
  /** RTP packets received from the browser. */
  inboundPackets: number;
  /** RMS (0..1) of the browser's audio over the last 500 ms; 0 when nothing arrived in that time. */
  inboundLevel: number;
  outboundPackets: number;
  /** The mock is sending speech (not silence) right now. */
  speaking: boolean;
  /** Data-channel messages received from the browser (parsed JSON, unwrapped for wm/vp/vps), last 100. */
  dataChannelMessages: unknown[];
}

export interface VoicePeerOptions {
  id: string;
  transport: VoiceTransport;
  accountId: string;
  session: Record<string, unknown>;
  /** Time per spoken word of the mock's replies. */
  wordMs: number;
  /** The answer is real but no ICE check is ever answered, so the call never connects. */
  neverConnects?: boolean;
  onChange(): void;
}

const LEVEL_WINDOW_MS = 500;
const LEVEL_TICK_FRAMES = 5;
const MAX_KEPT_MESSAGES = 100;
const CONNECT_DEADLINE_MS = 30_000;

export class VoicePeer {
  readonly info: VoiceCallInfo;
  private readonly pc: Werift.RTCPeerConnection;
  private readonly addresses = machineAddresses();
  private readonly tone = new VoiceTone();
  private readonly recentFrames: { at: number; rms: number }[] = [];
  private conversation: Conversation | undefined;
  private mediaTimer: NodeJS.Timeout | undefined;
  private readonly connectDeadline: NodeJS.Timeout;
  private sequenceNumber = Math.floor(Math.random() * 0xffff);
  private timestamp = Math.floor(Math.random() * 0xffffffff);

  constructor(private readonly options: VoicePeerOptions) {
    this.info = {
      id: options.id,
      transport: options.transport,
      accountId: options.accountId,
      session: options.session,
      state: "new",
      createdAt: Date.now(),
      connectedAt: null,
      closedAt: null,
      browserAddress: null,
      inboundPackets: 0,
      inboundLevel: 0,
      outboundPackets: 0,
      speaking: false,
      dataChannelMessages: [],
    };
    this.pc = new werift.RTCPeerConnection({
      codecs: {
        // werift has no Opus encoder, so the mock talks (and listens) in PCMU.
        audio: [new werift.RTCRtpCodecParameters({ mimeType: "audio/PCMU", clockRate: 8000, channels: 1, payloadType: 0 })],
      },
      iceServers: [],
      // ICE-lite also stops werift from asking a public STUN server for a reflexive candidate.
      iceLite: true,
      iceUseIpv4: false,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: ["127.0.0.1"],
      // Bind the socket to 127.0.0.1 too (werift binds 0.0.0.0 by default): the kernel then lets
      // no packet from another host reach it.
      iceInterfaceAddresses: { udp4: "127.0.0.1" },
      // The peer answers a check to where it came from, and that becomes the call's media path.
      // A browser without a loopback switch checks from its LAN-address sockets (still to
      // 127.0.0.1), so any address of this machine is accepted; any other host is ignored.
      iceFilterStunResponse: (_message, address) => !options.neverConnects && isMachineAddress(address[0], this.addresses),
    });
    this.pc.connectionStateChange.subscribe((state) => {
      if (state === "connected") this.onConnected();
      if (state === "failed" || state === "closed") this.close();
    });
    this.pc.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((rtp) => this.onInboundRtp(rtp.header.payloadType, rtp.payload));
    });
    if (options.transport === "codex") {
      this.pc.onDataChannel.subscribe((channel) => this.wireChannel(channel));
    }
    this.connectDeadline = setTimeout(() => this.close(), CONNECT_DEADLINE_MS);
  }

  /** Answer the browser's offer; resolves with the answer SDP once gathering is complete. */
  async answer(offerSdp: string): Promise<string> {
    if (this.options.transport !== "codex") {
      // The ChatGPT web transports use a pre-negotiated channel: id 0, empty label.
      this.wireChannel(this.pc.createDataChannel("", { negotiated: true, id: 0 }));
    }
    await this.pc.setRemoteDescription({ type: "offer", sdp: machineCandidatesOnly(offerSdp, this.addresses) });
    for (const transceiver of this.pc.getTransceivers()) {
      if (transceiver.kind === "audio") transceiver.setDirection("sendrecv");
    }
    await this.pc.setLocalDescription(await this.pc.createAnswer());
    await this.gatheringComplete();
    const sdp = this.pc.localDescription?.sdp;
    if (!sdp) throw new Error("werift produced no answer");
    return sdp;
  }

  close(): void {
    if (this.info.state === "closed") return;
    this.info.state = "closed";
    this.info.closedAt = Date.now();
    this.info.speaking = false;
    clearTimeout(this.connectDeadline);
    clearInterval(this.mediaTimer);
    this.conversation?.close();
    void this.pc.close().catch(() => undefined);
    this.options.onChange();
  }

  /** The person asked for work (an agent handoff cue); undefined before the data channel is open. See Conversation.personSays. */
  personSays(transcript: string): (() => void) | undefined {
    return this.conversation?.personSays(transcript);
  }

  /** A copy with the level computed now. */
  snapshot(): VoiceCallInfo {
    return structuredClone({ ...this.info, inboundLevel: this.recentLevel() });
  }

  private gatheringComplete(): Promise<void> {
    if (this.pc.iceGatheringState === "complete") return Promise.resolve();
    return new Promise((resolve) => {
      const { unSubscribe } = this.pc.iceGatheringStateChange.subscribe((state) => {
        if (state !== "complete") return;
        unSubscribe();
        resolve();
      });
    });
  }

  private onConnected(): void {
    if (this.info.state !== "new") return;
    clearTimeout(this.connectDeadline);
    this.info.state = "connected";
    this.info.connectedAt = Date.now();
    this.info.browserAddress = this.pc.iceTransports[0]?.connection.nominated?.remoteAddr[0] ?? null;
    this.mediaTimer = setInterval(() => this.sendFrame(), FRAME_MS);
    this.options.onChange();
  }

  private sendFrame(): void {
    const sender = this.pc.getTransceivers().find((t) => t.kind === "audio")?.sender;
    if (!sender) return;
    const payload = this.info.speaking ? this.tone.nextFrame() : SILENT_FRAME;
    const header = new werift.RtpHeader({
      payloadType: 0,
      sequenceNumber: this.sequenceNumber,
      timestamp: this.timestamp,
      marker: false,
    });
    this.sequenceNumber = (this.sequenceNumber + 1) & 0xffff;
    this.timestamp = (this.timestamp + SAMPLES_PER_FRAME) >>> 0;
    this.info.outboundPackets += 1;
    sender.sendRtp(new werift.RtpPacket(header, Buffer.from(payload))).catch(() => undefined);
    // The inbound level and counts change all the time: let waiters re-check every 100 ms.
    if (this.info.outboundPackets % LEVEL_TICK_FRAMES === 0) this.options.onChange();
  }

  private onInboundRtp(payloadType: number, payload: Buffer): void {
    this.info.inboundPackets += 1;
    const rms = payloadType === 0 ? mulawRms(payload) : 0;
    const now = Date.now();
    this.recentFrames.push({ at: now, rms });
    while (this.recentFrames.length > 0 && this.recentFrames[0]!.at < now - LEVEL_WINDOW_MS) this.recentFrames.shift();
  }

  private recentLevel(): number {
    const since = Date.now() - LEVEL_WINDOW_MS;
    const frames = this.recentFrames.filter((frame) => frame.at >= since);
    if (frames.length === 0) return 0;
    return Math.sqrt(frames.reduce((sum, frame) => sum + frame.rms * frame.rms, 0) / frames.length);
  }

  private wireChannel(channel: Werift.RTCDataChannel): void {
    const wrapped = this.options.transport !== "codex";
    const send = (event: RealtimeEvent) => {
      if (channel.readyState !== "open") return;
      channel.send(JSON.stringify(wrapped ? { type: "data_message", data: JSON.stringify(event) } : event));
    };
    this.conversation = new Conversation(
      {
        send,
        setSpeaking: (speaking) => {
          this.info.speaking = speaking;
          if (speaking) this.tone.restart();
          if (wrapped) send({ type: "state_update", new_state: speaking ? "speaking" : "listening" });
        },
      },
      this.options.session,
      this.options.wordMs,
    );
    const start = () => this.conversation?.start();
    if (channel.readyState === "open") start();
    else channel.stateChanged.subscribe((state) => (state === "open" ? start() : undefined));
    // werift would notice the browser hanging up only ~28 s later (ICE consent); the channel knows at once.
    channel.stateChanged.subscribe((state) => (state === "closed" ? this.close() : undefined));
    channel.onMessage.subscribe((data) => this.onChannelMessage(data.toString(), wrapped));
  }

  private onChannelMessage(text: string, wrapped: boolean): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (wrapped) message = unwrap(message);
    if (typeof message !== "object" || message === null || typeof (message as RealtimeEvent).type !== "string") return;
    this.info.dataChannelMessages.push(message);
    if (this.info.dataChannelMessages.length > MAX_KEPT_MESSAGES) this.info.dataChannelMessages.shift();
    this.options.onChange();
    this.conversation?.receive(message as RealtimeEvent);
  }
}

/** `{type: "data_message", data: "<json>"}` → the inner event; anything else as it is. */
function unwrap(message: unknown): unknown {
  const outer = message as { type?: unknown; data?: unknown };
  if (outer?.type !== "data_message" || typeof outer.data !== "string") return message;
  try {
    return JSON.parse(outer.data);
  } catch {
    return message;
  }
}
