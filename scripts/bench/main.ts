/**
 * `npm run bench`: measures the proxy against the mock provider with a production build.
 * Prints medians over repeated runs; nothing here asserts, the numbers are for reading.
 */
import { performance } from "node:perf_hooks";
import { startNextServer, type NextServer } from "../../test-support/next-server";
import { startRedisServer } from "../../test-support/redis-server";
import { startUpstashBridge } from "../../test-support/upstash-bridge";
import { benchAppServer } from "./app-server";
import { ensureProductionBuild } from "./build";
import { startCountingProxy } from "./counting-proxy";
import { compareWithFloor, floorRows, loadNote } from "./floor-comparison";
import { startFloorServer } from "./floor-server";
import { mockControl, startMockProcess } from "./mock-process";
import { treeRssBytes } from "./process-memory";
import { realtimeSignalingMedians } from "./realtime-timing";
import { API, directInit, requestBody, signInDirectly, signInThroughApp } from "./sign-in";
import { formatTable, median } from "./stats";
import { timeStream } from "./stream-timing";
import { voiceConnectRow } from "./voice-connect";

const SECRET = "benchmark-secret-0123456789abcdefghijklmnop";
const RUNS = Number(process.env.BENCH_RUNS ?? 50);

async function main(): Promise<void> {
  const distDir = ensureProductionBuild();
  const mock = await startMockProcess();
  const cleanups: (() => Promise<unknown>)[] = [async () => mock.child.kill("SIGTERM")];
  try {
    // The rate limits would refuse the timed runs (the realtime one allows a handful of calls a minute).
    const env = {
      LWC_ISSUER_URL: mock.url,
      LWC_CODEX_BASE_URL: `${mock.url}/backend-api/codex`,
      LWC_SECRET: SECRET,
      LWC_RATE_LIMIT_PER_MINUTE: "1000000",
      LWC_REALTIME_RATE_LIMIT_PER_MINUTE: "1000000",
    };
    const app = await startNextServer(env);
    cleanups.push(() => app.stop());
    await mockControl(mock.url, "/__mock/options", { streamChunkDelayMs: 0, pollIntervalSeconds: 1 });

    const cookie = await signInThroughApp(app.url, mock.url);
    const direct = await signInDirectly(mock.url);
    const rows: [string, string, string, string][] = [["Measure", "Through proxy", "Direct to mock", "Ratio / overhead"]];

    const short = "Say hello to the benchmark.";
    const viaProxy = () => timeStream(`${app.url}${API}/responses`, { method: "POST", headers: { cookie }, body: JSON.stringify(requestBody(short)) });
    const viaDirect = () => timeStream(`${mock.url}/backend-api/codex/responses`, directInit(mock.url, direct, short));
    // Warm both paths up (JIT, connection pools) before measuring.
    for (let i = 0; i < 20; i += 1) {
      await viaProxy();
      await viaDirect();
    }
    const proxyRuns = [];
    const directRuns = [];
    for (let i = 0; i < RUNS; i += 1) {
      proxyRuns.push(await viaProxy());
      directRuns.push(await viaDirect());
    }
    const ttfbProxy = median(proxyRuns.map((r) => r.ttfbMs));
    const ttfbDirect = median(directRuns.map((r) => r.ttfbMs));
    rows.push(["Time to first byte (median ms)", ttfbProxy.toFixed(2), ttfbDirect.toFixed(2), `+${(ttfbProxy - ttfbDirect).toFixed(2)} ms`]);
    const totalProxy = median(proxyRuns.map((r) => r.totalMs));
    const totalDirect = median(directRuns.map((r) => r.totalMs));
    rows.push(["Total time, short reply (median ms)", totalProxy.toFixed(2), totalDirect.toFixed(2), `+${(totalProxy - totalDirect).toFixed(2)} ms`]);

    const long = Array.from({ length: 20_000 }, (_, i) => `word${i}`).join(" ");
    const bigProxy = [];
    const bigDirect = [];
    for (let i = 0; i < 5; i += 1) {
      bigProxy.push(await timeStream(`${app.url}${API}/responses`, { method: "POST", headers: { cookie }, body: JSON.stringify(requestBody(long)) }));
      bigDirect.push(await timeStream(`${mock.url}/backend-api/codex/responses`, directInit(mock.url, direct, long)));
    }
    const mbps = (runs: { bytes: number; totalMs: number }[]) => median(runs.map((r) => r.bytes / 1e6 / (r.totalMs / 1000)));
    const tpProxy = mbps(bigProxy);
    const tpDirect = mbps(bigDirect);
    rows.push(["Streaming throughput (median MB/s)", tpProxy.toFixed(1), tpDirect.toFixed(1), `${(tpProxy / tpDirect).toFixed(2)}× of direct`]);

    const rps = await requestsPerSecond(`${app.url}${API}/session`, cookie);
    rows.push(["GET /session (requests/s, 16 concurrent)", rps.toFixed(0), "—", "—"]);

    const memory = await peakMemoryWithOpenStreams(app, mock.url, cookie);
    rows.push(["App memory, idle → 100 open streams (MB)", `${memory.idleMb.toFixed(0)} → ${memory.peakMb.toFixed(0)}`, "—", `+${(memory.peakMb - memory.idleMb).toFixed(0)} MB`]);

    const signaling = await realtimeSignalingMedians(app.url, mock.url, cookie, direct);
    rows.push([
      "POST /realtime → answer SDP (median ms, 20 runs)",
      signaling.viaRoute.toFixed(2),
      signaling.direct.toFixed(2),
      `+${(signaling.viaRoute - signaling.direct).toFixed(2)} ms`,
    ]);
    rows.push(await voiceConnectRow(app.url, cookie, API));

    console.log(`\nProxy benchmark (${RUNS} runs each, medians; next start + mock provider on loopback)\n`);
    console.log(formatTable(rows));

    const floorApp = await startFloorServer(`${mock.url}/backend-api/codex`);
    cleanups.push(() => floorApp.stop());
    const loadBefore = loadNote();
    const floor = await compareWithFloor(app, floorApp, mock.url, cookie, direct);
    await floorApp.stop();
    console.log(
      `\nThe proxy against the framework's floor, a bare forwarding route in the benchmark-only app scripts/bench/floor-app (${distDir}; ` +
        `3 runs of ${floor.rounds} rounds of ${floor.block} replies each, taking turns; ${loadBefore} before, ${loadNote()} after)\n`,
    );
    console.log(formatTable(floorRows(floor)));

    console.log("\nStore round trips per request with the Upstash store (real Redis behind the REST bridge)\n");
    console.log(formatTable(await storeRoundTrips(mock.url, cleanups)));

    console.log("\nAgent voice: start time and memory per live session (handler in-process, mock provider)\n");
    console.log(formatTable(await benchAppServer()));
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

async function requestsPerSecond(url: string, cookie: string): Promise<number> {
  const durationMs = 3000;
  const until = performance.now() + durationMs;
  let completed = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (performance.now() < until) {
        const response = await fetch(url, { headers: { cookie } });
        await response.arrayBuffer();
        completed += 1;
      }
    }),
  );
  return completed / (durationMs / 1000);
}

async function peakMemoryWithOpenStreams(app: NextServer, mockUrl: string, cookie: string) {
  const pid = app.pid();
  if (!pid) throw new Error("no app pid");
  const idleMb = treeRssBytes(pid) / 1e6;
  await mockControl(mockUrl, "/__mock/options", { streamChunkDelayMs: 20 });
  let peak = idleMb;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssBytes(pid) / 1e6)), 50);
  const text = Array.from({ length: 150 }, (_, i) => `w${i}`).join(" ");
  await Promise.all(
    Array.from({ length: 100 }, () =>
      timeStream(`${app.url}${API}/responses`, { method: "POST", headers: { cookie }, body: JSON.stringify(requestBody(text)) }),
    ),
  );
  clearInterval(sampler);
  await mockControl(mockUrl, "/__mock/options", { streamChunkDelayMs: 0 });
  return { idleMb, peakMb: peak };
}

async function storeRoundTrips(mockUrl: string, cleanups: (() => Promise<unknown>)[]): Promise<[string, string, string, string][]> {
  const redis = await startRedisServer();
  cleanups.push(() => redis.stop());
  const token = "bench-bridge-token";
  const bridge = await startUpstashBridge({ redisPort: redis.port, token });
  cleanups.push(() => bridge.close());
  const counter = await startCountingProxy(bridge.url);
  cleanups.push(() => counter.close());
  const app = await startNextServer({
    LWC_ISSUER_URL: mockUrl,
    LWC_CODEX_BASE_URL: `${mockUrl}/backend-api/codex`,
    LWC_SECRET: SECRET,
    LWC_RATE_LIMIT_PER_MINUTE: "1000000",
    UPSTASH_REDIS_REST_URL: counter.url,
    UPSTASH_REDIS_REST_TOKEN: token,
  });
  cleanups.push(() => app.stop());
  await mockControl(mockUrl, "/__mock/options", { accessTokenTtlSeconds: 3600 });
  const cookie = await signInThroughApp(app.url, mockUrl);
  const measure = async (path: string, init: RequestInit = {}) => {
    await (await fetch(`${app.url}${API}${path}`, { ...init, headers: { cookie } })).arrayBuffer(); // warm caches
    const before = counter.count();
    await (await fetch(`${app.url}${API}${path}`, { ...init, headers: { cookie } })).arrayBuffer();
    return counter.count() - before;
  };
  const responsesInit = { method: "POST", body: JSON.stringify(requestBody("count my round trips")) };
  return [
    ["Route", "Store round trips", "Target", ""],
    ["GET /session", String(await measure("/session")), "1", ""],
    ["GET /status (signed in)", String(await measure("/status")), "1", ""],
    ["POST /responses (before going upstream)", String(await measure("/responses", responsesInit)), "≤ 2", ""],
  ];
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
