/**
 * Test support: a werift peer that plays the browser's part of a voice call (offer, PCMU mic audio,
 * the data channel), so Node tests and the benchmark can make a real WebRTC call to the mock.
 */
import { encodeMulaw, mulawRms } from "./mulaw";
import { FRAME_MS, SAMPLE_RATE, SAMPLES_PER_FRAME } from "./tone";
import { werift, type Werift } from "./werift";

interface BrowserPeerOptions {
  /** wm/vp/vps use a pre-negotiated channel (id 0, empty label) with wrapped events. */
  webTransport?: boolean;
  /**
   * The IPv4 address the peer's one candidate and socket use (default 127.0.0.1). Another address
   * of this machine plays a browser started without a loopback switch, which checks from there.
   */
  hostAddress?: string;
}

type Event = { type: string } & Record<string, unknown>;

export class TestBrowserPeer {
  readonly pc: Werift.RTCPeerConnection;
  readonly channel: Werift.RTCDataChannel;
  /** Events received on the data channel (unwrapped). */
  readonly events: Event[] = [];
  private readonly listeners = new Set<() => void>();
  private micTimer: NodeJS.Timeout | undefined;
  private micSample = 0;
  private sequenceNumber = 1;
  private timestamp = 0;
  private inbound: { at: number; rms: number }[] = [];

  constructor(private readonly options: BrowserPeerOptions = {}) {
    this.pc = new werift.RTCPeerConnection({
      codecs: { audio: [new werift.RTCRtpCodecParameters({ mimeType: "audio/PCMU", clockRate: 8000, channels: 1, payloadType: 0 })] },
      // A full-ICE agent would otherwise ask a public STUN server; point it at a closed loopback port.
      iceServers: [{ urls: "stun:127.0.0.1:9" }],
      iceStunGatherTimeout: 0.2,
      iceUseIpv4: false,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: [options.hostAddress ?? "127.0.0.1"],
      iceInterfaceAddresses: { udp4: options.hostAddress ?? "127.0.0.1" },
    });
    this.pc.addTransceiver("audio", { direction: "sendrecv" });
    this.channel = options.webTransport
      ? this.pc.createDataChannel("", { negotiated: true, id: 0 })
      : this.pc.createDataChannel("oai-events");
    this.channel.onMessage.subscribe((data) => this.onMessage(data.toString()));
    this.pc.onTrack.subscribe((track) =>
      track.onReceiveRtp.subscribe((rtp) => {
        this.inbound.push({ at: Date.now(), rms: mulawRms(rtp.payload) });
        if (this.inbound.length > 500) this.inbound.shift();
        this.changed();
      }),
    );
    this.pc.connectionStateChange.subscribe(() => this.changed());
    this.channel.stateChanged.subscribe(() => this.changed());
  }

  async offer(): Promise<string> {
    await this.pc.setLocalDescription(await this.pc.createOffer());
    await this.until(() => this.pc.iceGatheringState === "complete", 5000, "ICE gathering");
    return this.pc.localDescription!.sdp;
  }

  async accept(answerSdp: string): Promise<void> {
    await this.pc.setRemoteDescription({ type: "answer", sdp: answerSdp });
  }

  connected(timeoutMs = 10_000): Promise<void> {
    const isUp = () => this.pc.connectionState === "connected" && this.channel.readyState === "open";
    return this.until(isUp, timeoutMs, "connected").then(() => undefined);
  }

  /** Resolves when the other side ended the call (the data channel closed). */
  closedByRemote(timeoutMs = 10_000): Promise<void> {
    return this.until(() => this.channel.readyState === "closed", timeoutMs, "channel close").then(() => undefined);
  }

  waitForEvent(predicate: (event: Event) => boolean, timeoutMs = 10_000): Promise<Event> {
    return this.until(() => this.events.find(predicate), timeoutMs, "event");
  }

  send(event: Event): void {
    const text = JSON.stringify(event);
    this.channel.send(this.options.webTransport ? JSON.stringify({ type: "data_message", data: text }) : text);
  }

  /** RMS of the audio received in the last `windowMs`. */
  inboundLevel(windowMs = 300): number {
    const since = Date.now() - windowMs;
    const frames = this.inbound.filter((frame) => frame.at >= since);
    if (frames.length === 0) return 0;
    return Math.sqrt(frames.reduce((sum, frame) => sum + frame.rms * frame.rms, 0) / frames.length);
  }

  /** Resolves once the inbound audio's recent level passes `level`. */
  waitForInboundLevel(level: number, timeoutMs = 10_000): Promise<number> {
    return this.until(() => (this.inboundLevel() > level ? this.inboundLevel() : undefined), timeoutMs, "inbound audio");
  }

  /** Send a 400 Hz "microphone" tone (amplitude 0 = silence packets). */
  startMic(amplitude = 0.3): void {
    this.stopMic();
    const sender = this.pc.getTransceivers()[0]!.sender;
    this.micTimer = setInterval(() => {
      const payload = Buffer.alloc(SAMPLES_PER_FRAME);
      for (let i = 0; i < SAMPLES_PER_FRAME; i += 1, this.micSample += 1) {
        payload[i] = encodeMulaw(amplitude * 32_767 * Math.sin((2 * Math.PI * 400 * this.micSample) / SAMPLE_RATE));
      }
      const header = new werift.RtpHeader({ payloadType: 0, sequenceNumber: this.sequenceNumber, timestamp: this.timestamp });
      this.sequenceNumber = (this.sequenceNumber + 1) & 0xffff;
      this.timestamp += SAMPLES_PER_FRAME;
      sender.sendRtp(new werift.RtpPacket(header, payload)).catch(() => undefined);
    }, FRAME_MS);
  }

  stopMic(): void {
    clearInterval(this.micTimer);
    this.micTimer = undefined;
  }

  async close(): Promise<void> {
    this.stopMic();
    await this.pc.close().catch(() => undefined);
  }

  private onMessage(text: string): void {
    let event = JSON.parse(text) as Event;
    if (this.options.webTransport && event.type === "data_message" && typeof event.data === "string") {
      event = JSON.parse(event.data) as Event;
    }
    this.events.push(event);
    this.changed();
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Resolves with the first truthy value of `check`, re-evaluated on every change of the peer. */
  private until<T>(check: () => T | undefined | false, timeoutMs: number, what: string): Promise<T> {
    const first = check();
    if (first) return Promise.resolve(first);
    return new Promise((resolve, reject) => {
      const listener = () => {
        const value = check();
        if (!value) return;
        done();
        resolve(value);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`test browser peer: no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const gathering = this.pc.iceGatheringStateChange.subscribe(listener);
      const done = () => {
        clearTimeout(timer);
        gathering.unSubscribe();
        this.listeners.delete(listener);
      };
      this.listeners.add(listener);
    });
  }
}
