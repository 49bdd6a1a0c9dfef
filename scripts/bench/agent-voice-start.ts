/**
 * `npm run bench:agent-voice` (and part of `npm run bench`): how long agent voice takes to start and
 * to give its first answer, with the real codex, per sandbox backend:
 *
 * - bwrap, as configured by default (a warm spare: one initialised codex kept ready);
 * - bwrap without the warm spare (every start launches codex);
 * - vercel, against the local fake of the Vercel Sandbox API (mock-upstream/vercel-sandbox/), which
 *   runs each VM's codex locally in bwrap: the figures are our own overhead (SDK, API round trips,
 *   the session relay), not Vercel's VM boot.
 *
 * Each run is timed from POST /realtime/app-server (a loopback SDP offer, as the tests make) to
 * (a) its 201 with the answer SDP and (b) the first `conversation.handoff.append` the mock voice
 * side receives after it asked for a handoff as soon as the session's sideband was set up: the
 * first agent answer. The handler runs in this process behind a real HTTP server, with the mock
 * provider; everything on 127.0.0.1. One untimed run per backend warms up first. Runs per backend:
 * BENCH_AGENT_VOICE_RUNS (default 5). Every process it started is gone at the end, or it fails.
 */
import { performance } from "node:perf_hooks";
import { referenceConfirmTool, referenceTools } from "../../lib/agent-voice/tools";
import { makeCodexSnapshot } from "../../lib/agent-voice/sandbox/vercel/snapshot";
import { vercelSandboxApi } from "../../lib/agent-voice/vercel-sandbox-api";
import type { AgentVoiceOptions } from "../../lib/agent-voice/types";
import { CLIENT_VERSION } from "../../lib/upstream/config";
import { SIDEBAND_IN, SIDEBAND_PATH } from "../../mock-upstream/codex";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "../../mock-upstream/server";
import { FAKE_VERCEL_PROJECT_ID, startFakeVercelSandbox, type FakeVercelSandbox } from "../../mock-upstream/vercel-sandbox/server";
import { codexExecutable, codexReadOnlyPaths } from "../../tests/codex-real/codex-binary";
import { loopbackOffer } from "../../tests/codex-real/loopback-offer";
import { processTree } from "../../tests/codex-real/served-app";
import { signIn, startHarness } from "../../tests/integration/harness";
import { processAlive } from "../../test-support/session-relay-process";
import { formatTable, median } from "./stats";

const RUNS = Number(process.env.BENCH_AGENT_VOICE_RUNS ?? 5);
const ANSWER_TIMEOUT_MS = 60_000;

interface Backend {
  name: string;
  agentVoice: () => AgentVoiceOptions;
  /** Sandboxes still live after a run (the fake's count); none may be. */
  live?: () => number;
}

interface Run {
  answerSdpMs: number;
  firstAnswerMs: number;
}

const sidebandFrame = (type: string, after: number) => (r: RecordedRequest) =>
  r.id > after && r.method === SIDEBAND_IN && r.path === SIDEBAND_PATH && (r.body as { type?: string } | undefined)?.type === type;

/** Every process seen below this one while a session ran (bwrap, VMs, codex): none may outlive the bench. */
const seen = new Set<number>();

async function measure(mock: MockUpstream, backend: Backend): Promise<Run[]> {
  const h = await startHarness({
    sharedMock: mock,
    handler: { realtime: { agentVoice: backend.agentVoice() }, confirmTool: referenceConfirmTool },
  });
  try {
    const client = h.client();
    await signIn(h, client);
    const runs: Run[] = [];
    for (let run = 0; run <= RUNS; run += 1) {
      const lastRecorded = Math.max(0, ...mock.requests().map((r) => r.id));
      const offer = await loopbackOffer();
      try {
        const started = performance.now();
        const reply = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
        const answerSdpMs = performance.now() - started;
        if (reply.status !== 201 || !/^v=0\r\n/.test(reply.json<{ sdp: string }>().sdp)) {
          throw new Error(`${backend.name}: start answered ${reply.status} ${reply.text}\n${h.evidence.logs.map((line) => line.message).join("\n")}`);
        }
        await mock.waitForRequest(sidebandFrame("session.update", lastRecorded), ANSWER_TIMEOUT_MS);
        if (!mock.codex.requestHandoff({ transcript: "What time is it?" })) throw new Error(`${backend.name}: no sideband open`);
        await mock.waitForRequest(sidebandFrame("conversation.handoff.append", lastRecorded), ANSWER_TIMEOUT_MS);
        const firstAnswerMs = performance.now() - started;
        for (const { pid } of processTree(process.pid)) seen.add(pid);
        const { sessionId } = reply.json<{ sessionId: string }>();
        const closed = await client.request("DELETE", `/realtime/app-server/${sessionId}`);
        if (closed.status !== 200) throw new Error(`${backend.name}: hang-up answered ${closed.status}`);
        if (backend.live && backend.live() !== 0) throw new Error(`${backend.name}: a sandbox outlived its hang-up`);
        // Run 0 warms up (JIT, first codex start, the spare); it is not reported.
        if (run > 0) runs.push({ answerSdpMs, firstAnswerMs });
      } finally {
        await offer.close();
      }
      mock.reset();
    }
    return runs;
  } finally {
    // What the server runs on SIGTERM: ends every session and the warm spare.
    await h.provider.close();
    await h.close();
  }
}

/**
 * Waits until no process of ours is left: no descendant but `before` (tsx's own helpers), and none
 * of those seen during the runs (one that left our tree is found by pid). Throws after 15 s.
 */
async function untilNoneLeft(before: Set<number>): Promise<void> {
  const deadline = Date.now() + 15_000;
  const left = () => [...new Set([...processTree(process.pid).map(({ pid }) => pid), ...seen])].filter((pid) => pid !== process.pid && !before.has(pid) && processAlive(pid));
  while (left().length > 0) {
    if (Date.now() > deadline) throw new Error(`processes left behind: ${left().join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const cells = (values: number[]) => [median(values), Math.min(...values), Math.max(...values)].map((ms) => ms.toFixed(0));

async function main(): Promise<void> {
  const before = new Set(processTree(process.pid).map(({ pid }) => pid));
  const codex = codexExecutable();
  const readOnlyPaths = codexReadOnlyPaths(codex);
  const mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  let fake: FakeVercelSandbox | undefined;
  try {
    fake = await startFakeVercelSandbox({ imagePaths: [readOnlyPaths[0]!], egress: [new URL(mock.url).host] });
    // The Vercel backend takes its credentials from the environment, as on a server.
    Object.assign(process.env, { VERCEL_TOKEN: fake.token, VERCEL_TEAM_ID: fake.teamId, VERCEL_PROJECT_ID: FAKE_VERCEL_PROJECT_ID });
    const api = vercelSandboxApi(fake.url, process.env);
    const { snapshotId } = await makeCodexSnapshot(api, { codexVersion: CLIENT_VERSION, codex: { linkTo: codex }, log: () => undefined });
    const vercelApiUrl = fake.url;
    const liveInFake = () => fake!.stats().live;

    const common = { command: codex, tools: referenceTools, sandboxReadOnlyPaths: readOnlyPaths };
    const backends: Backend[] = [
      { name: "bwrap (warm spare, the default)", agentVoice: () => ({ ...common, sandbox: "bwrap" }) },
      { name: "bwrap (no warm spare)", agentVoice: () => ({ ...common, sandbox: "bwrap", keepWarmProcess: false }) },
      {
        name: "vercel (local fake API)",
        agentVoice: () => ({ ...common, sandbox: "vercel", vercelSandbox: { apiUrl: vercelApiUrl, snapshotId, vcpus: 1, timeoutMs: 300_000 } }),
        live: liveInFake,
      },
    ];

    const rows = [["Agent voice start, real codex (ms)", "201 with answer SDP: median", "min", "max", "First agent answer: median", "min", "max"]];
    for (const backend of backends) {
      const runs = await measure(mock, backend);
      rows.push([`${backend.name}, ${RUNS} runs`, ...cells(runs.map((r) => r.answerSdpMs)), ...cells(runs.map((r) => r.firstAnswerMs))]);
    }
    process.stdout.write(`\n${formatTable(rows)}\n`);
  } finally {
    await fake?.close();
    await mock.close();
  }
  await untilNoneLeft(before);
  process.stdout.write("No process left behind.\n");
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
