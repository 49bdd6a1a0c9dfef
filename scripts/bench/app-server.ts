/**
 * Agent voice start time and memory: POST /realtime/app-server → 201 (spawn → answer SDP) through
 * the real handler over HTTP, against the mock provider, with and without the warm spare process;
 * and the resident memory of one live session's process tree. Prints numbers, asserts nothing.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createProviderHandler } from "../../lib/server/handler";
import { cachedCodexPath } from "../../lib/agent-voice/codex-cache";
import { referenceConfirmTool, referenceTools } from "../../lib/agent-voice/tools";
import type { AgentVoiceOptions } from "../../lib/agent-voice/types";
import { CLIENT_VERSION } from "../../lib/upstream/config";
import { startMockUpstream, type MockUpstream } from "../../mock-upstream/server";
import { TestBrowserPeer } from "../../mock-upstream/voice/test-browser-peer";
import { createFakeAppServer } from "../../test-support/fake-app-server/control";
import { serveHandler } from "../../test-support/serve-handler";
import { treeRssBytes } from "./process-memory";
import { median } from "./stats";

const API = "/api/provider";
const SECRET = "benchmark-secret-0123456789abcdefghijklmnop";

/** Our own child processes (each live session's process group leader). */
function childPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === process.pid) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

async function signIn(appUrl: string, mock: MockUpstream, n: number): Promise<string> {
  const login = await fetch(`${appUrl}${API}/login`, { method: "POST" });
  let cookie = (login.headers.getSetCookie()[0] ?? "").split(";")[0]!;
  const { userCode } = (await login.json()) as { userCode: string };
  mock.approve(userCode, { accountId: `acct_bench_${n}`, email: `bench${n}@example.com` });
  const status = await fetch(`${appUrl}${API}/status`, { headers: { cookie } });
  cookie = status.headers.getSetCookie()[0]?.split(";")[0] ?? cookie;
  if (((await status.json()) as { status: string }).status !== "authenticated") throw new Error("sign-in failed");
  return cookie;
}

async function startLive(appUrl: string, cookie: string, offer: string): Promise<{ ms: number; sessionId: string }> {
  const begin = performance.now();
  const reply = await fetch(`${appUrl}${API}/realtime/app-server`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify({ sdp: offer, session: { voice: "cove" } }),
  });
  const body = (await reply.json()) as { sessionId?: string; message?: string };
  if (reply.status !== 201) throw new Error(`start answered ${reply.status}: ${body.message ?? ""}`);
  return { ms: performance.now() - begin, sessionId: body.sessionId! };
}

const hangUp = (appUrl: string, cookie: string, id: string) =>
  fetch(`${appUrl}${API}/realtime/app-server/${id}`, { method: "DELETE", headers: { cookie } }).then((r) => r.arrayBuffer());

async function measure(label: string, appServer: AgentVoiceOptions, runs: number, offer: string): Promise<[string, string, string, string]> {
  const mock = await startMockUpstream();
  const provider = createProviderHandler({
    secrets: [SECRET],
    upstream: { issuer: mock.issuer, codexBaseUrl: mock.codexBaseUrl },
    // The voice throttle (12 starts a minute per login) would refuse the later runs.
    realtime: { rateLimit: false, agentVoice: { tools: referenceTools, ...appServer } },
    confirmTool: referenceConfirmTool,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  const served = await serveHandler(provider.handler);
  try {
    const cookies = [await signIn(served.url, mock, 0), await signIn(served.url, mock, 1), await signIn(served.url, mock, 2)];
    const times: number[] = [];
    for (let i = 0; i < runs + 1; i += 1) {
      const { ms, sessionId } = await startLive(served.url, cookies[0]!, offer);
      if (i > 0) times.push(ms); // The first start is cold (and makes the spare when warm).
      await hangUp(served.url, cookies[0]!, sessionId);
      // Let the spare (if any) finish initialising, as it would between two people's calls.
      await new Promise((resolve) => setTimeout(resolve, appServer.keepWarmProcess ? 1500 : 50));
    }
    let memory = "—";
    if (!appServer.keepWarmProcess) {
      // Only the sessions' processes: under `npm run bench` the mock and the app servers are children too.
      const others = new Set(childPids());
      const ids = [];
      for (const cookie of cookies) ids.push((await startLive(served.url, cookie, offer)).sessionId);
      const total = childPids()
        .filter((pid) => !others.has(pid))
        .reduce((sum, pid) => sum + treeRssBytes(pid), 0);
      memory = `${(total / cookies.length / 1e6).toFixed(0)} MB`;
      for (const [n, id] of ids.entries()) await hangUp(served.url, cookies[n]!, id);
    }
    return [label, median(times).toFixed(0), `${Math.min(...times).toFixed(0)}–${Math.max(...times).toFixed(0)}`, memory];
  } finally {
    await provider.close(); // ends the warm spare
    await served.close();
    await mock.close();
  }
}

/** Rows for the agent-voice table; the real executable only when installed and the mock can serve it. */
export async function benchAppServer(runs = Number(process.env.BENCH_APP_SERVER_RUNS ?? 10)) {
  // A real offer (a werift peer's, as a browser would send): the mock's voice peer answers only an
  // offer it can negotiate, and every start (the real codex's) goes through it.
  const peer = new TestBrowserPeer();
  try {
    return await benchWithOffer(await peer.offer(), runs);
  } finally {
    await peer.close();
  }
}

async function benchWithOffer(offer: string, runs: number) {
  const rows: [string, string, string, string][] = [["Agent voice start (spawn → answer SDP)", "Median ms", "Range ms", "Memory per live session"]];
  const fake = await createFakeAppServer();
  try {
    // sandbox "off": the fake writes its log to its control folder, which the bwrap sandbox hides
    // (it exits at once inside it); the real codex below runs sandboxed, as deployed.
    rows.push(await measure("fake app-server, cold process", { command: fake.command, keepWarmProcess: false, sandbox: "off" }, runs, offer));
    rows.push(await measure("fake app-server, warm spare", { command: fake.command, keepWarmProcess: true, sandbox: "off" }, runs, offer));
  } finally {
    await fake.remove();
  }
  const real = process.env.LWC_CODEX_COMMAND ?? cachedCodexPath();
  if (!existsSync(real)) {
    rows.push([`codex ${CLIENT_VERSION}`, "not installed", "bash scripts/ensure-codex.sh", "—"]);
    return rows;
  }
  const config = await realConfig();
  if (config === null) {
    // Never run the real executable without the config that keeps it on the mock: it would try the internet.
    rows.push([`codex ${CLIENT_VERSION}`, "skipped", "no offline config module", "—"]);
    return rows;
  }
  for (const keepWarmProcess of [false, true]) {
    const label = `codex ${CLIENT_VERSION}, ${keepWarmProcess ? "warm spare" : "cold process"}`;
    try {
      rows.push(await measure(label, { command: real, keepWarmProcess, ...config }, runs, offer));
    } catch (error) {
      rows.push([label, "failed", error instanceof Error ? error.message.slice(0, 80) : "error", "—"]);
    }
  }
  return rows;
}

/**
 * Extra options for the real executable. None: the handler writes the default config.toml
 * (lib/agent-voice/codex-config.ts), which, the mock being local, keeps codex on the mock's URLs.
 * Returning null skips the real rows.
 */
async function realConfig(): Promise<Partial<AgentVoiceOptions> | null> {
  return {};
}
