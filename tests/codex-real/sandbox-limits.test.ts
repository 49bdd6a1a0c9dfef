/**
 * Each codex process's limits, with the real codex (issue 32, finding 2). Before them, one
 * apply_patch of /proc/self/pagemap took a codex process to about 1.1 GB resident in 3 s, and a
 * 100 MB text file it could see cost codex +580 MB and the server +235 MB (kept), sent as one
 * JSON-RPC line. Now the memory cap holds (LWC_AGENT_MEMORY_MB, default 512), a line over 1 MiB
 * ends that live session with an `error` event and a log line, and the server and another
 * person's live session go on. The process and home caps, which the kernel only enforces by
 * refusing a fork or a write, end the live session too (the server's watch, limit-watch.ts).
 *
 * The server is the app's handler in a process of its own (served-app.ts), so its memory is its
 * own to measure; the mock model makes the patches.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { SIDEBAND_IN, SIDEBAND_PATH } from "@/mock-upstream/codex";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "@/mock-upstream/server";
import { openEvents } from "@/tests/integration/app-server-harness";
import { createEvidence, signIn, TestClient } from "@/tests/integration/harness";
import { codexExecutable, codexReadOnlyPaths, processGroupExists, processGroupMembers, processGroupOf } from "./codex-binary";
import { loopbackOffer, type LoopbackOffer } from "./loopback-offer";
import { startProxySink, type ProxySink } from "./proxy-sink";
import { serveApp, statusField, type ServedApp } from "./served-app";

const run = `${process.pid}-${Date.now()}`;
const FILE_LINE = `big-file-line-${run}`;
const MIB = 1024 * 1024;

let mock: MockUpstream;
let sink: ProxySink;
let scratch: string;
let wrapper: string;
let spawner: string;
let sleepPath: string;
let bigFile: string;
let fourMbFile: string;
let readOnlyPaths: string[];
let server: ServedApp | undefined;
const offers: LoopbackOffer[] = [];

beforeAll(async () => {
  const codexPath = codexExecutable();
  readOnlyPaths = codexReadOnlyPaths(codexPath);
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  sink = await startProxySink();
  scratch = mkdtempSync(join(tmpdir(), "lwc-limits-test-"));
  // The wrapper in a folder of its own (the sandbox shows the command's folder); the big file in
  // another, listed as a read-only path.
  mkdirSync(join(scratch, "bin"));
  mkdirSync(join(scratch, "shown"));
  wrapper = join(scratch, "bin", "codex");
  const exports = Object.entries(sink.env).map(([name, value]) => `export ${name}='${value}'`);
  // Inside bwrap the sandbox's own proxy variables stand (its only way out); without them the sink
  // catches any attempt to leave 127.0.0.1.
  writeFileSync(wrapper, ["#!/bin/sh", `if [ -z "$HTTPS_PROXY" ]; then ${exports.join("; ")}; fi`, `exec '${codexPath}' "$@"`, ""].join("\n"));
  chmodSync(wrapper, 0o755);
  // Stands in for a codex that starts processes (codex 0.171.0 has no tool for it here: no shell,
  // and apply_patch needs an approval the server declines): once its home holds `spawn-now`, it
  // starts 80 processes inside the sandbox, children of the codex launcher.
  mkdirSync(join(scratch, "spawner"));
  spawner = join(scratch, "spawner", "codex");
  sleepPath = execFileSync("sh", ["-c", "command -v sleep"], { encoding: "utf8" }).trim();
  writeFileSync(
    spawner,
    [
      "#!/bin/sh",
      `if [ -z "$HTTPS_PROXY" ]; then ${exports.join("; ")}; fi`,
      `(while [ ! -e "$HOME/spawn-now" ]; do '${sleepPath}' 0.2; done; i=0; while [ $i -lt 80 ]; do '${sleepPath}' 600 & i=$((i+1)); done; wait) &`,
      `exec '${codexPath}' "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(spawner, 0o755);
  const line = `${FILE_LINE} ${"x".repeat(100)}\n`;
  bigFile = join(scratch, "shown", "notes.txt");
  writeFileSync(bigFile, line.repeat(Math.ceil((100 * MIB) / line.length)));
  fourMbFile = join(scratch, "shown", "small-notes.txt");
  writeFileSync(fourMbFile, line.repeat(Math.ceil((4 * MIB) / line.length)));
}, 120_000);

afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await sink?.close();
  await mock?.close();
});

afterEach(async () => {
  for (const offer of offers.splice(0)) await offer.close();
  const log = server?.output() ?? "";
  await server?.stop();
  server = undefined;
  mock.reset();
  expect(sink.attempts).toEqual([]);
  // Inside the sandbox nothing tried to reach a host other than the mock.
  expect(log.split("\n").filter((line) => line.includes("the sandbox refused"))).toEqual([]);
});

const sidebandFrame = (type: string) => (r: RecordedRequest) =>
  r.method === SIDEBAND_IN && r.path === SIDEBAND_PATH && (r.body as { type?: string } | undefined)?.type === type;

async function serve(extra: Record<string, string> = {}): Promise<ServedApp> {
  server = await serveApp({
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      LWC_SECRET: `limits-test-secret-${"x".repeat(32)}`,
      LWC_ISSUER_URL: mock.issuer,
      LWC_CODEX_BASE_URL: mock.codexBaseUrl,
      LWC_CODEX_COMMAND: wrapper,
      LWC_AGENT_SANDBOX_READONLY_PATHS: [...readOnlyPaths, join(scratch, "shown")].join(":"),
      ...extra,
    },
  });
  return server;
}

/** The native codex processes of `served` (the launchers exec'd codex's own binary, under vendor/). */
function nativeCodex(served: ServedApp): number[] {
  return served.descendants().filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("/vendor/");
    } catch {
      return false;
    }
  });
}

/**
 * The sandboxes of `served` now, each one process group (bwrap, the egress relay, codex), by pgid.
 * Each must hold its relay: a limit that ends codex must take the relay with it.
 */
function sandboxGroups(served: ServedApp): number[] {
  const groups = [...new Set(nativeCodex(served).map((pid) => processGroupOf(pid)))];
  for (const pgid of groups) expect(processGroupMembers(pgid).some((member) => member.cmdline.includes("relay.cjs")), `group ${pgid} has its relay`).toBe(true);
  return groups;
}

/** Waits until exactly one of `groups` is gone, every process of it (a limit ended that sandbox), and the others are there. */
async function oneSandboxGone(groups: number[]): Promise<void> {
  await expect.poll(() => groups.filter((pgid) => processGroupExists(pgid)).length, { timeout: 10_000 }).toBe(groups.length - 1);
}

/** A signed-in person's live session on `served`, with its event stream open. */
async function liveSession(served: ServedApp, email: string) {
  const client = new TestClient(served.port, createEvidence());
  await signIn({ mock }, client, { email, accountId: `acct_${email.split("@")[0]}` });
  const lastRecorded = Math.max(0, ...mock.requests().map((r) => r.id));
  const offer = await loopbackOffer();
  offers.push(offer);
  const reply = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
  expect(reply.status, `${reply.text}\n${served.output()}`).toBe(201);
  const { sessionId } = reply.json<{ sessionId: string }>();
  await mock.waitForRequest((r) => r.id > lastRecorded && sidebandFrame("session.update")(r));
  return { client, sessionId, events: await openEvents(client, sessionId) };
}

const remove = (path: string) => `*** Begin Patch\n*** Delete File: ${path}\n*** End Patch\n`;

it("apply_patch of /proc/self/pagemap: codex stays under its memory cap (was about 1.1 GB)", async () => {
  const served = await serve();
  const session = await liveSession(served, "pagemap@example.com");
  mock.codex.queueToolCalls([{ name: "apply_patch", input: remove("/proc/self/pagemap") }]);
  mock.codex.requestHandoff({ transcript: "Please tidy up." });
  await mock.waitForRequest(sidebandFrame("conversation.handoff.append"), 30_000);
  // However the read ended (refused inside codex, or the process ended by the cap), no codex
  // process of this server grew past the cap; and the session either goes on or ended for memory.
  const peaksMb = nativeCodex(served).map((pid) => statusField(pid, "VmHWM") / 1024);
  process.stdout.write(`codex peak resident memory after the pagemap patch: ${peaksMb.map((mb) => `${mb.toFixed(0)} MB`).join(", ")}\n`);
  for (const peak of peaksMb) expect(peak).toBeLessThan(512);
  await session.client.request("DELETE", `/realtime/app-server/${session.sessionId}`);
  expect(["closed_by_client", "memory_limit"]).toContain((await session.events.next((event) => event.type === "session.closed")).reason);
});

it("a 4 MB file it can see: codex sends it to the server as one JSON-RPC line, which ends the session at 1 MiB", async () => {
  // (codex also tells the voice model itself, on its own connection, that it needs approval, quoting
  // about 4 KB of the request: only what the sandbox shows can be quoted, hence the short list.)
  const served = await serve();
  const serverPeakBefore = served.peakKb();
  const session = await liveSession(served, "reader@example.com");
  const groups = sandboxGroups(served);
  mock.codex.queueToolCalls([{ name: "apply_patch", input: remove(fourMbFile) }]);
  mock.codex.requestHandoff({ transcript: "Please delete my notes." });
  expect(await session.events.next((event) => event.type === "error")).toMatchObject({
    message: "The agent sent a message larger than this server accepts, so the voice session ended.",
  });
  expect(await session.events.next((event) => event.type === "session.closed")).toMatchObject({ reason: "message_too_large" });
  // Its whole sandbox went with it (bwrap, the relay, codex); the spare's is still there.
  await oneSandboxGone(groups);
  expect(served.output()).toContain("agent voice: a codex process sent a JSON-RPC line over 1048576 bytes; its live session ended");
  expect((served.peakKb() - serverPeakBefore) / 1024).toBeLessThan(64);
});

it("a 100 MB file it can see: the session ends at the memory cap (or the 1 MiB line cap) with an event and a log line; the server's memory and another session are unaffected", async () => {
  const served = await serve();
  const bystander = await liveSession(served, "bystander@example.com");
  const attacker = await liveSession(served, "attacker@example.com");
  const serverPeakBefore = served.peakKb();
  const groups = sandboxGroups(served);

  mock.codex.queueToolCalls([{ name: "apply_patch", input: remove(bigFile) }]);
  mock.codex.requestHandoff({ transcript: "Please delete my notes." });
  const error = await attacker.events.next((event) => event.type === "error");
  const closed = await attacker.events.next((event) => event.type === "session.closed");
  expect(["message_too_large", "memory_limit"]).toContain(closed.reason);
  expect(error.message).toMatch(/so the voice session ended\.$/);
  expect(served.output()).toMatch(/agent voice: a codex process (sent a JSON-RPC line over 1048576 bytes|went over its memory limit \(LWC_AGENT_MEMORY_MB\)); its live session ended/);
  // The attacker's whole sandbox went with it (bwrap, the relay, codex); the bystander's and the spare's are there.
  await oneSandboxGone(groups);

  const serverGrowthMb = (served.peakKb() - serverPeakBefore) / 1024;
  const codexPeaks = nativeCodex(served).map((pid) => `${(statusField(pid, "VmHWM") / 1024).toFixed(0)} MB`);
  process.stdout.write(`100 MB patch: server peak memory +${serverGrowthMb.toFixed(1)} MB (${closed.reason}); codex processes left: ${codexPeaks.join(", ")}\n`);
  expect(serverGrowthMb).toBeLessThan(64);

  // The other person's session is still live: it closes normally, when asked.
  expect((await bystander.client.request("DELETE", `/realtime/app-server/${bystander.sessionId}`)).status).toBe(200);
  expect(await bystander.events.next((event) => event.type === "session.closed")).toMatchObject({ reason: "closed_by_client" });
});

/** When a process started, in clock ticks since boot (/proc/<pid>/stat's 22nd field). */
function startTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
}

/**
 * The native codex of each sandbox of `served`, oldest first, once there are `count`. A start takes
 * the spare (made after the first start) or a new process, so with the bystander started first and
 * the attacker second they are [bystander, attacker, spare].
 */
async function codexByAge(served: ServedApp, count: number): Promise<number[]> {
  await expect.poll(() => nativeCodex(served).length, { timeout: 30_000 }).toBe(count);
  return nativeCodex(served).sort((a, b) => startTicks(a) - startTicks(b));
}

/** `path` inside the sandbox of `codexPid`, as the host reaches it (the sandbox's own mounts, its tmpfs home). */
function insideHome(codexPid: number, name: string): string {
  const home = /(?:^|\0)HOME=([^\0]*)/.exec(readFileSync(`/proc/${codexPid}/environ`, "utf8"))?.[1];
  if (!home) throw new Error(`no HOME for ${codexPid}`);
  return `/proc/${codexPid}/root${home}/${name}`;
}

/** Two people's live sessions; the attacker's sandbox and the others, and the groups of all. */
async function twoSessions(served: ServedApp) {
  const bystander = await liveSession(served, "bystander@example.com");
  const attacker = await liveSession(served, "attacker@example.com");
  const [, attackerCodex] = await codexByAge(served, 3);
  return { bystander, attacker, attackerCodex: attackerCodex!, attackerGroup: processGroupOf(attackerCodex!), groups: sandboxGroups(served) };
}

/** The attacker's session ended for `reason` with its sentence and log line; its sandbox is gone, the bystander's session goes on. */
async function endedForLimit(
  served: ServedApp,
  sessions: Awaited<ReturnType<typeof twoSessions>>,
  expected: { reason: string; message: string; log: string },
): Promise<void> {
  const { attacker, bystander, groups } = sessions;
  expect(await attacker.events.next((event) => event.type === "error")).toMatchObject({ message: expected.message });
  expect(await attacker.events.next((event) => event.type === "session.closed")).toMatchObject({ reason: expected.reason });
  await oneSandboxGone(groups);
  // The one gone is the attacker's, every process of it (the stand-in's too).
  expect(processGroupExists(sessions.attackerGroup)).toBe(false);
  const logLines = served.output().split("\n").filter((line) => line.includes("its live session ended"));
  expect(logLines).toEqual([expect.stringContaining(`agent voice: a codex process ${expected.log}; its live session ended`)]);
  expect(logLines[0]).not.toContain("/");
  // The other person's session is still live (it closes when asked), and the server starts a new one.
  expect((await bystander.client.request("DELETE", `/realtime/app-server/${bystander.sessionId}`)).status).toBe(200);
  expect(await bystander.events.next((event) => event.type === "session.closed")).toMatchObject({ reason: "closed_by_client" });
  const next = await liveSession(served, "next@example.com");
  expect((await next.client.request("DELETE", `/realtime/app-server/${next.sessionId}`)).status).toBe(200);
}

it("its home filled to LWC_AGENT_HOME_MB: the session ends with home_limit, an event and a log line; the server and another session are unaffected (was: writes failed, the session went on)", async () => {
  // codex's own files take about 1 MB of its home; 4 MB leaves room for that, not for 4 MB more.
  const served = await serve({ LWC_AGENT_HOME_MB: "4" });
  const sessions = await twoSessions(served);
  // codex 0.171.0 has no tool that writes here (apply_patch needs an approval the server declines):
  // the test fills the home through the sandbox's own view of it, as a write from inside would.
  const file = openSync(insideHome(sessions.attackerCodex, "filler"), "w");
  try {
    const chunk = Buffer.alloc(64 * 1024, 120);
    for (let written = 0; written < 4 * MIB; written += chunk.length) writeSync(file, chunk);
    throw new Error("the home took 4 MB more than its 4 MB");
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
  } finally {
    closeSync(file);
  }
  await endedForLimit(served, sessions, {
    reason: "home_limit",
    message: "The agent wrote more to its folder than this server allows, so the voice session ended.",
    log: "filled its home (LWC_AGENT_HOME_MB)",
  });
});

it("more processes than LWC_AGENT_MAX_PROCESSES: the session ends with process_limit, an event and a log line; the server and another session are unaffected (was: forks failed, the session went on)", async () => {
  // A sandbox runs about 35 tasks (bwrap, the egress relay, codex's threads, the stand-in's loop); 64 leaves room for them, not for 80 more.
  const served = await serve({
    LWC_AGENT_MAX_PROCESSES: "64",
    LWC_CODEX_COMMAND: spawner,
    LWC_AGENT_SANDBOX_READONLY_PATHS: [...readOnlyPaths, join(scratch, "shown"), sleepPath].join(":"),
  });
  const sessions = await twoSessions(served);
  writeFileSync(insideHome(sessions.attackerCodex, "spawn-now"), "");
  await endedForLimit(served, sessions, {
    reason: "process_limit",
    message: "The agent started more processes than this server allows, so the voice session ended.",
    log: "reached its process limit (LWC_AGENT_MAX_PROCESSES)",
  });
});
