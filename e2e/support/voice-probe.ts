import type { Page } from "@playwright/test";

/**
 * Watches the browser's own WebRTC and microphone APIs from inside the page, so a test can look at
 * the real peer connection and microphone the app uses. It records, it does not change behaviour:
 * every RTCPeerConnection made and every stream getUserMedia hands out is kept in a list.
 */
export async function installVoiceProbe(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const probe = { peerConnections: [] as RTCPeerConnection[], microphones: [] as MediaStream[] };
    (window as unknown as { __voiceProbe: typeof probe }).__voiceProbe = probe;
    const NativePeerConnection = window.RTCPeerConnection;
    window.RTCPeerConnection = class extends NativePeerConnection {
      constructor(configuration?: RTCConfiguration) {
        super(configuration);
        probe.peerConnections.push(this);
      }
    };
    const mediaDevices = navigator.mediaDevices;
    if (mediaDevices) {
      const getUserMedia = mediaDevices.getUserMedia.bind(mediaDevices);
      mediaDevices.getUserMedia = async (constraints) => {
        const stream = await getUserMedia(constraints);
        probe.microphones.push(stream);
        return stream;
      };
    }
  });
}

interface ProbeWindow {
  __voiceProbe: { peerConnections: RTCPeerConnection[]; microphones: MediaStream[] };
}

/** connectionState of the latest peer connection, and its ICE servers (must be none: no STUN). */
export async function latestPeerConnection(page: Page): Promise<{ state: string; iceServers: number } | null> {
  return page.evaluate(() => {
    const pc = (window as unknown as ProbeWindow).__voiceProbe.peerConnections.at(-1);
    return pc ? { state: pc.connectionState, iceServers: pc.getConfiguration().iceServers?.length ?? 0 } : null;
  });
}

/** readyState of every microphone track the page was ever given. */
export async function microphoneTrackStates(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    (window as unknown as ProbeWindow).__voiceProbe.microphones.flatMap((stream) => stream.getTracks().map((track) => track.readyState)),
  );
}

/**
 * Listens to the assistant's audio that arrives on the latest peer connection for `durationMs`,
 * with WebAudio in the page (stats are no proof: packets can arrive and never be decoded).
 * Returns the peak absolute sample and the RMS over the whole window.
 */
async function measureRemoteAudio(page: Page, durationMs = 1000): Promise<{ peak: number; rms: number }> {
  return page.evaluate(async (duration) => {
    const pc = (window as unknown as ProbeWindow).__voiceProbe.peerConnections.at(-1);
    const track = pc?.getReceivers().find((receiver) => receiver.track.kind === "audio")?.track;
    if (!track) throw new Error("no remote audio track");
    const context = new AudioContext();
    await context.resume();
    const analyser = context.createAnalyser();
    analyser.fftSize = 2048;
    context.createMediaStreamSource(new MediaStream([track])).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    let peak = 0;
    let sumSquares = 0;
    let count = 0;
    const until = performance.now() + duration;
    while (performance.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 40));
      analyser.getFloatTimeDomainData(samples);
      for (const sample of samples) {
        peak = Math.max(peak, Math.abs(sample));
        sumSquares += sample * sample;
      }
      count += samples.length;
    }
    await context.close();
    return { peak, rms: Math.sqrt(sumSquares / count) };
  }, durationMs);
}

/**
 * Listens in windows of `windowMs` until one window has the assistant clearly audible (peak above
 * `minPeak`, RMS above `minRms`), for at most `timeoutMs`. On a busy machine the first packets of a
 * reply can arrive late or be concealed, so one fixed window right after the reply starts can catch
 * silence although the reply plays. Throws with the loudest window's figures when none qualifies.
 */
export async function waitUntilRemoteAudioHeard(
  page: Page,
  { windowMs = 400, timeoutMs = 10_000, minPeak = 0.1, minRms = 0.02 } = {},
): Promise<{ peak: number; rms: number }> {
  const deadline = Date.now() + timeoutMs;
  let loudest = { peak: 0, rms: 0 };
  while (Date.now() < deadline) {
    const window = await measureRemoteAudio(page, windowMs);
    if (window.peak > minPeak && window.rms > minRms) return window;
    if (window.rms > loudest.rms) loudest = window;
  }
  throw new Error(`the assistant's audio was never heard within ${timeoutMs} ms: loudest ${windowMs} ms window peak ${loudest.peak.toFixed(3)}, RMS ${loudest.rms.toFixed(3)} (need > ${minPeak} and > ${minRms})`);
}
