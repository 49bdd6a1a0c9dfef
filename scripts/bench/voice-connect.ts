/**
 * Offer-to-connected in Chromium: a real browser makes WebRTC calls through the app's /realtime
 * route to the mock's voice peer on loopback, and we time createOffer() → connectionState
 * "connected" in the page. The first call (JIT warm-up in Chromium and werift) is reported apart.
 */
import { chromium } from "@playwright/test";
import { median } from "./stats";

const CALLS = 20;
const VOICE_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--use-fake-ui-for-media-stream",
  "--use-fake-device-for-media-stream",
  "--allow-loopback-in-peer-connection",
  "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
];

/**
 * One call in the page: resolves to milliseconds from createOffer to connected, then hangs up.
 * Plain JavaScript in a string: tsx would wrap a real function with helpers the page lacks.
 */
const TIMED_CALL = `async (realtimeUrl) => {
  const microphone = await navigator.mediaDevices.getUserMedia({ audio: true });
  const pc = new RTCPeerConnection({ iceServers: [] });
  try {
    pc.addTransceiver(microphone.getAudioTracks()[0], { direction: "sendrecv", streams: [microphone] });
    pc.createDataChannel("oai-events");
    const started = performance.now();
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise((resolve) => {
      if (pc.iceGatheringState === "complete") resolve();
      pc.addEventListener("icegatheringstatechange", () => pc.iceGatheringState === "complete" && resolve());
    });
    const response = await fetch(realtimeUrl, {
      method: "POST",
      credentials: "include",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sdp: pc.localDescription.sdp }),
    });
    if (response.status !== 201) throw new Error("POST /realtime answered " + response.status);
    await pc.setRemoteDescription({ type: "answer", sdp: await response.text() });
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("not connected within 15 s")), 15000);
      const check = () => {
        if (pc.connectionState === "connected") { clearTimeout(timer); resolve(); }
        if (pc.connectionState === "failed") { clearTimeout(timer); reject(new Error("connection failed")); }
      };
      pc.addEventListener("connectionstatechange", check);
      check();
    });
    return performance.now() - started;
  } finally {
    pc.close();
    microphone.getTracks().forEach((track) => track.stop());
  }
}`;

/** A row for the benchmark table: offer → connected through our route, median of CALLS calls. */
export async function voiceConnectRow(appUrl: string, cookie: string, apiBase = "/api/provider"): Promise<[string, string, string, string]> {
  const browser = await chromium.launch({ executablePath: process.env.E2E_CHROMIUM_PATH ?? "/usr/bin/chromium", args: VOICE_ARGS });
  try {
    const context = await browser.newContext();
    const [name, ...value] = cookie.split("=");
    await context.addCookies([{ name: name!, value: value.join("="), url: appUrl }]);
    const page = await context.newPage();
    // Any page of the app's origin will do: 127.0.0.1 is a secure context, so getUserMedia works.
    await page.goto(`${appUrl}/api/health`);
    const realtimeUrl = `${appUrl}${apiBase}/realtime`;
    const timedCall = () => page.evaluate<number>(`(${TIMED_CALL})(${JSON.stringify(realtimeUrl)})`);
    const first = await timedCall();
    const times: number[] = [];
    for (let call = 0; call < CALLS; call += 1) times.push(await timedCall());
    return [`Voice offer → connected in Chromium (median ms of ${CALLS})`, median(times).toFixed(0), "—", `first call ${first.toFixed(0)} ms`];
  } finally {
    await browser.close();
  }
}
