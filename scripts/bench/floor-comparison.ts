/**
 * The proxy against the framework's floor: POST /api/provider/responses and the bare forwarding
 * route POST /api/bench-floor (lib/bench-floor.ts), in the same build, the same server process and
 * the same run, against the same mock reply. They take turns in blocks of requests (the order
 * flips every round), so load from other processes hits both alike; each block's server CPU is
 * read from /proc before and after it.
 */
import { cpus, loadavg } from "node:os";
import { BENCH_FLOOR_PATH } from "../../lib/bench-floor";
import type { BackendAuth } from "../../lib/upstream/types";
import { processCpuNs } from "./server-cpu";
import { API, directInit, requestBody } from "./sign-in";
import { median } from "./stats";
import { timeStream, type StreamTiming } from "./stream-timing";

const CPU_RATIO_TARGET = 1.08;
const TTFB_OVER_FLOOR_TARGET_MS = 0.5;

const ROUNDS = Number(process.env.BENCH_FLOOR_ROUNDS ?? 60);
const BLOCK = 10;
// Long enough for V8 to have compiled both paths: the numbers are the steady state of a running server.
const WARM_UP = 300;

interface FloorComparison {
  rounds: number;
  block: number;
  /** Server CPU per streamed reply, median over blocks, ms (the ratio is the median of each round's ratio). */
  cpuMs: { proxy: number; floor: number };
  /** Time to first byte, median over every reply, ms. */
  ttfbMs: { proxy: number; floor: number };
  cpuRatio: number;
  ttfbOverFloorMs: number;
}

export async function compareWithFloor(
  app: { url: string; pid(): number | undefined },
  mockUrl: string,
  cookie: string,
  direct: BackendAuth,
): Promise<FloorComparison> {
  const pid = app.pid();
  if (!pid) throw new Error("no app pid");
  const text = "Say hello to the benchmark.";
  // The floor gets the request a browser would send it: the same session cookie (a browser sends it
  // to every path of the origin, and Next parses it for any route), plus the mock's token, which the
  // proxy would have added. It forwards only the token.
  const floorInit = directInit(mockUrl, direct, text);
  floorInit.headers = { ...(floorInit.headers as Record<string, string>), cookie };
  const paths: Record<"proxy" | "floor", () => Promise<StreamTiming>> = {
    proxy: () => timeStream(`${app.url}${API}/responses`, { method: "POST", headers: { cookie }, body: JSON.stringify(requestBody(text)) }),
    floor: () => timeStream(`${app.url}${BENCH_FLOOR_PATH}`, floorInit),
  };
  const probe = await fetch(`${app.url}${BENCH_FLOOR_PATH}`, { method: "POST" });
  await probe.body?.cancel();
  if (probe.status === 404) {
    throw new Error(`${BENCH_FLOOR_PATH} answered 404: the build predates the floor route (rebuild) or LWC_BENCH_FLOOR is not 1`);
  }

  for (let i = 0; i < WARM_UP; i += 1) {
    await paths.proxy();
    await paths.floor();
  }
  const cpu = { proxy: [] as number[], floor: [] as number[] };
  const ttfb = { proxy: [] as number[], floor: [] as number[] };
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const name of round % 2 === 0 ? (["proxy", "floor"] as const) : (["floor", "proxy"] as const)) {
      const before = processCpuNs(pid);
      for (let i = 0; i < BLOCK; i += 1) ttfb[name].push((await paths[name]()).ttfbMs);
      cpu[name].push((processCpuNs(pid) - before) / 1e6 / BLOCK);
    }
  }
  const cpuMs = { proxy: median(cpu.proxy), floor: median(cpu.floor) };
  const ttfbMs = { proxy: median(ttfb.proxy), floor: median(ttfb.floor) };
  return {
    rounds: ROUNDS,
    block: BLOCK,
    cpuMs,
    ttfbMs,
    // Paired by round (the two blocks ran back to back), so a slow stretch of the machine cancels out.
    cpuRatio: median(cpu.proxy.map((proxy, round) => proxy / cpu.floor[round]!)),
    ttfbOverFloorMs: ttfbMs.proxy - ttfbMs.floor,
  };
}

/** The comparison as table rows (the shape formatTable prints). */
export function floorRows(result: FloorComparison): [string, string, string, string][] {
  const within = (ok: boolean) => (ok ? "within target" : "OVER target");
  return [
    ["Streamed reply", "Through proxy", "Framework floor", "Ratio / overhead"],
    [
      "Server CPU per reply (median ms)",
      result.cpuMs.proxy.toFixed(3),
      result.cpuMs.floor.toFixed(3),
      `${result.cpuRatio.toFixed(2)}× the floor (target ≤ ${CPU_RATIO_TARGET}×, ${within(result.cpuRatio <= CPU_RATIO_TARGET)})`,
    ],
    [
      "Time to first byte (median ms)",
      result.ttfbMs.proxy.toFixed(2),
      result.ttfbMs.floor.toFixed(2),
      `${signed(result.ttfbOverFloorMs)} over the floor (target ≤ +${TTFB_OVER_FLOOR_TARGET_MS} ms, ${within(result.ttfbOverFloorMs <= TTFB_OVER_FLOOR_TARGET_MS)})`,
    ],
  ];
}

/** The machine's load while measuring (1-minute load average), printed beside the numbers. */
export function loadNote(): string {
  return `1-minute load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`;
}

const signed = (ms: number) => `${ms < 0 ? "−" : "+"}${Math.abs(ms).toFixed(2)} ms`;
