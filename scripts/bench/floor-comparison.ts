/**
 * The proxy against the framework's floor: the product's POST /api/provider/responses and the bare
 * forwarding route POST /api/bench-floor of the benchmark-only app (scripts/bench/floor-app/: the
 * same Next.js and the product's next.config settings, its own `next start`), in the same run,
 * against the same mock reply. They take turns in blocks of requests (the order flips every round),
 * so load from other processes hits both alike; each block's server CPU is read from /proc, of the
 * process that served it, before and after it. The rounds make three runs, and the targets are
 * checked on the median of the three (each run's CPU ratio is the median of its rounds' paired
 * ratios).
 */
import { cpus, loadavg } from "node:os";
import type { BackendAuth } from "../../lib/upstream/types";
import { FLOOR_PATH } from "./floor-app/forward";
import type { FloorServer } from "./floor-server";
import { processCpuNs } from "./server-cpu";
import { API, directInit, requestBody } from "./sign-in";
import { median } from "./stats";
import { timeStream, type StreamTiming } from "./stream-timing";

const CPU_RATIO_TARGET = 1.08;
const TTFB_OVER_FLOOR_TARGET_MS = 0.5;

const RUNS = 3;
/**
 * Rounds per run; each round is one block through the proxy and one through the floor. With 40 the
 * three runs of one invocation differed by up to 0.09x (1.03x to 1.12x); with 200 by at most 0.03x,
 * usually 0.01x (measured 2026-11-27), for about 40 s an invocation.
 */
const ROUNDS = Number(process.env.BENCH_FLOOR_ROUNDS ?? 200);
const BLOCK = 10;
// Long enough for V8 to have compiled both paths: the numbers are the steady state of a running server.
// After 300 replies each the first run still read 1.13-1.18x while the next two read 1.07-1.11x; after
// 2,000 the three runs agree (measured 2026-11-27).
const WARM_UP = Number(process.env.BENCH_FLOOR_WARM_UP ?? 2000);

interface FloorRun {
  /** Server CPU per streamed reply, median over the run's blocks, ms. */
  cpuMs: { proxy: number; floor: number };
  /** Time to first byte, median over the run's replies, ms. */
  ttfbMs: { proxy: number; floor: number };
  /** Median of the rounds' paired ratios (the two blocks of a round ran back to back). */
  cpuRatio: number;
  ttfbOverFloorMs: number;
}

interface FloorComparison extends FloorRun {
  runs: FloorRun[];
  rounds: number;
  block: number;
  /** 25th and 75th percentile of every round's CPU ratio: how much the machine moved the numbers. */
  cpuRatioSpread: [number, number];
}

export async function compareWithFloor(
  app: { url: string; pid(): number | undefined },
  floorApp: FloorServer,
  mockUrl: string,
  cookie: string,
  direct: BackendAuth,
): Promise<FloorComparison> {
  const appPid = app.pid();
  const floorPid = floorApp.pid();
  if (!appPid || !floorPid) throw new Error("no server pid");
  const pids = { proxy: appPid, floor: floorPid };
  const text = "Say hello to the benchmark.";
  // The floor gets the request a browser would send the product's origin: the same session cookie
  // (a browser sends it to every path, and Next parses it for any route), plus the mock's token,
  // which the proxy would have added. It forwards only the token.
  const floorInit = directInit(mockUrl, direct, text);
  floorInit.headers = { ...(floorInit.headers as Record<string, string>), cookie };
  const paths: Record<"proxy" | "floor", () => Promise<StreamTiming>> = {
    proxy: () => timeStream(`${app.url}${API}/responses`, { method: "POST", headers: { cookie }, body: JSON.stringify(requestBody(text)) }),
    floor: () => timeStream(`${floorApp.url}${FLOOR_PATH}`, floorInit),
  };

  for (let i = 0; i < WARM_UP; i += 1) {
    await paths.proxy();
    await paths.floor();
  }
  const runs: FloorRun[] = [];
  const roundRatios: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const cpu = { proxy: [] as number[], floor: [] as number[] };
    const ttfb = { proxy: [] as number[], floor: [] as number[] };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const name of round % 2 === 0 ? (["proxy", "floor"] as const) : (["floor", "proxy"] as const)) {
        const before = processCpuNs(pids[name]);
        for (let i = 0; i < BLOCK; i += 1) ttfb[name].push((await paths[name]()).ttfbMs);
        cpu[name].push((processCpuNs(pids[name]) - before) / 1e6 / BLOCK);
      }
    }
    // Paired by round, so a slow stretch of the machine cancels out.
    const ratios = cpu.proxy.map((proxy, round) => proxy / cpu.floor[round]!);
    roundRatios.push(...ratios);
    const ttfbMs = { proxy: median(ttfb.proxy), floor: median(ttfb.floor) };
    runs.push({ cpuMs: { proxy: median(cpu.proxy), floor: median(cpu.floor) }, ttfbMs, cpuRatio: median(ratios), ttfbOverFloorMs: ttfbMs.proxy - ttfbMs.floor });
  }
  const of = (pick: (run: FloorRun) => number) => median(runs.map(pick));
  return {
    runs,
    rounds: ROUNDS,
    block: BLOCK,
    cpuMs: { proxy: of((run) => run.cpuMs.proxy), floor: of((run) => run.cpuMs.floor) },
    ttfbMs: { proxy: of((run) => run.ttfbMs.proxy), floor: of((run) => run.ttfbMs.floor) },
    cpuRatio: of((run) => run.cpuRatio),
    ttfbOverFloorMs: of((run) => run.ttfbOverFloorMs),
    cpuRatioSpread: [quantile(roundRatios, 0.25), quantile(roundRatios, 0.75)],
  };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** The comparison as table rows (the shape formatTable prints). */
export function floorRows(result: FloorComparison): [string, string, string, string][] {
  const within = (ok: boolean) => (ok ? "within target" : "OVER target");
  return [
    ["Streamed reply (median of 3 runs)", "Through proxy", "Framework floor", "Ratio / overhead"],
    [
      "Server CPU per reply (ms)",
      result.cpuMs.proxy.toFixed(3),
      result.cpuMs.floor.toFixed(3),
      `${result.cpuRatio.toFixed(2)}× the floor (target ≤ ${CPU_RATIO_TARGET}×, ${within(result.cpuRatio <= CPU_RATIO_TARGET)})`,
    ],
    [
      "  each run; every round's ratio 25th–75th percentile",
      "",
      "",
      `${result.runs.map((run) => `${run.cpuRatio.toFixed(2)}×`).join(", ")}; ${result.cpuRatioSpread[0].toFixed(2)}–${result.cpuRatioSpread[1].toFixed(2)}×`,
    ],
    [
      "Time to first byte (ms)",
      result.ttfbMs.proxy.toFixed(2),
      result.ttfbMs.floor.toFixed(2),
      `${signed(result.ttfbOverFloorMs)} over the floor (target ≤ +${TTFB_OVER_FLOOR_TARGET_MS} ms, ${within(result.ttfbOverFloorMs <= TTFB_OVER_FLOOR_TARGET_MS)})`,
    ],
    ["  each run", "", "", result.runs.map((run) => signed(run.ttfbOverFloorMs)).join(", ")],
  ];
}

/** The machine's load while measuring (1-minute load average), printed beside the numbers. */
export function loadNote(): string {
  return `1-minute load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`;
}

const signed = (ms: number) => `${ms < 0 ? "−" : "+"}${Math.abs(ms).toFixed(2)} ms`;
