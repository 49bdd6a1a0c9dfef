/**
 * Time from POSTing a WebRTC offer to holding the answer SDP: through our `/realtime` route versus
 * straight to the mock's Codex realtime call. The offer is a real one (a Node WebRTC peer's); each
 * POST makes the mock answer with a new peer of its own.
 */
import { performance } from "node:perf_hooks";
import { backendHeaders } from "../../lib/upstream/backend";
import { resolveUpstreamConfig } from "../../lib/upstream/config";
import { codexSession } from "../../lib/upstream/realtime";
import type { BackendAuth } from "../../lib/upstream/types";
import { TestBrowserPeer } from "../../mock-upstream/voice/test-browser-peer";
import { median } from "./stats";

const RUNS = 20;
const WARM_UP = 5;

async function timeAnswer(url: string, init: RequestInit): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, init);
  const text = await response.text();
  if (response.status !== 201 || !text.startsWith("v=0")) throw new Error(`${url} answered ${response.status}, not an SDP`);
  return performance.now() - started;
}

export async function realtimeSignalingMedians(
  appUrl: string,
  mockUrl: string,
  cookie: string,
  direct: BackendAuth,
): Promise<{ viaRoute: number; direct: number }> {
  const peer = new TestBrowserPeer();
  try {
    const sdp = await peer.offer();
    const config = resolveUpstreamConfig({ issuer: mockUrl, codexBaseUrl: `${mockUrl}/backend-api/codex` });
    const viaRoute = () =>
      timeAnswer(`${appUrl}/api/provider/realtime`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify({ sdp }),
      });
    const straight = () =>
      timeAnswer(`${mockUrl}/backend-api/codex/realtime/calls?intent=quicksilver&architecture=avas`, {
        method: "POST",
        headers: backendHeaders(config, direct, { "content-type": "application/json", "openai-alpha": "quicksilver=v1" }),
        body: JSON.stringify({ sdp, session: codexSession({ transport: "codex", sdp }) }),
      });
    for (let i = 0; i < WARM_UP; i += 1) {
      await viaRoute();
      await straight();
    }
    const routeRuns: number[] = [];
    const directRuns: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      routeRuns.push(await viaRoute());
      directRuns.push(await straight());
    }
    return { viaRoute: median(routeRuns), direct: median(directRuns) };
  } finally {
    await peer.close();
  }
}
