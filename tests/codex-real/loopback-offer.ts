/**
 * Test support: a real WebRTC offer (werift), gathered on 127.0.0.1 only, so the realtime start
 * carries what a browser would send and the mock's voice peer (werift) can answer it. werift falls
 * back to a public STUN server with `iceServers: []`, so it is pointed at a closed loopback port
 * instead; srflx gathering then finds nothing.
 */
import { RTCPeerConnection, RTCRtpCodecParameters } from "werift";

export interface LoopbackOffer {
  sdp: string;
  close(): Promise<void>;
}

export async function loopbackOffer(): Promise<LoopbackOffer> {
  const pc = new RTCPeerConnection({
    codecs: { audio: [new RTCRtpCodecParameters({ mimeType: "audio/PCMU", clockRate: 8000, channels: 1, payloadType: 0 })] },
    iceServers: [{ urls: "stun:127.0.0.1:9" }],
    iceStunGatherTimeout: 0.2,
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: ["127.0.0.1"],
  });
  pc.addTransceiver("audio", { direction: "sendrecv" });
  pc.createDataChannel("oai-events");
  const gathered = new Promise<void>((resolve) => {
    if (pc.iceGatheringState === "complete") return resolve();
    const subscription = pc.iceGatheringStateChange.subscribe((state) => {
      if (state === "complete") {
        subscription.unSubscribe();
        resolve();
      }
    });
  });
  await pc.setLocalDescription(await pc.createOffer());
  await gathered;
  return { sdp: pc.localDescription!.sdp, close: () => pc.close() };
}
