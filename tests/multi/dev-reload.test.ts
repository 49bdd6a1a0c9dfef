/**
 * `next dev` survives an edit: saving a server file makes Next evaluate lib/provider-app.ts again,
 * and the person stays signed in (the in-memory store and the development secret are kept), the
 * rate-limit count goes on, and agent voice reuses its codex processes instead of leaving the old
 * pool's spare running. A real `next dev` (Turbopack) on a copy of the project (so the edit touches
 * no file of this tree; node_modules hard-linked), with the mock provider and the fake app-server as
 * codex. No LWC_SECRET, as with a bare `npm run dev`. Needs no build.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { appendFile, cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { createFakeAppServer, NODE_MEMORY_MB, type FakeAppServer } from "@/test-support/fake-app-server/control";
import { freePort } from "@/test-support/free-port";
import { untilWindowHasRoom } from "@/test-support/rate-limit-window";
import { responsesBody, SessionClient } from "./session-client";

const projectRoot = join(import.meta.dirname, "..", "..");
const OFFER_SDP = "v=0\r\no=- 4611 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n";
/** Not copied: dependencies (hard-linked instead), builds, git, results, and local env files (the server gets its env from here). */
const NOT_COPIED = new Set(["node_modules", ".git", ".ci", "test-results", "playwright-report", "bench-results", "coverage"]);
const RATE_LIMIT = 3;
const MINUTE = 60_000;

let mock: MockUpstream;
let fake: FakeAppServer;
let copy: string;
let serverTmp: string;
let server: ChildProcess | undefined;
let output = "";
let baseUrl: string;

function copied(source: string): boolean {
  const name = basename(source);
  if (source === projectRoot) return true;
  if (NOT_COPIED.has(name) || name.startsWith(".next") || name.endsWith(".tsbuildinfo")) return false;
  return !(name.startsWith(".env") && name !== ".env.example");
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function spawnedPids(): Promise<number[]> {
  return (await fake.log()).filter((entry) => entry.type === "spawned").map((entry) => entry.pid);
}

async function aliveCodexPids(): Promise<number[]> {
  return (await spawnedPids()).filter(isAlive).sort();
}

/** Processes spawned after `before` that finished `initialize`: `count` of them. */
async function waitForNewInitialised(before: Set<number>, count: number): Promise<number[]> {
  return fake.waitFor((log) => {
    const fresh = log.filter((entry) => entry.type === "spawned" && !before.has(entry.pid)).map((entry) => entry.pid);
    const initialised = fresh.filter((pid) => log.some((entry) => entry.pid === pid && entry.message?.method === "initialized"));
    return initialised.length >= count ? initialised : undefined;
  }, `${count} initialised processes`);
}

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  fake = await createFakeAppServer();
  copy = await mkdtemp(join(tmpdir(), "lwc-dev-reload-"));
  serverTmp = await mkdtemp(join(tmpdir(), "lwc-dev-reload-tmp-"));
  await cp(projectRoot, copy, { recursive: true, filter: copied });
  // Hard links: Turbopack resolves nothing through a symlink that leaves the project's folder.
  const linked = spawnSync("cp", ["-al", join(projectRoot, "node_modules"), join(copy, "node_modules")]);
  if (linked.status !== 0) throw new Error(`cp -al node_modules failed: ${linked.stderr.toString()}`);

  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(LWC_|UPSTASH_|KV_)/.test(name)) env[name] = value;
  }
  server = spawn(process.execPath, ["node_modules/next/dist/bin/next", "dev", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: copy,
    env: {
      ...env,
      NODE_ENV: "development",
      NEXT_TELEMETRY_DISABLED: "1",
      TMPDIR: serverTmp,
      LWC_ISSUER_URL: mock.issuer,
      LWC_CODEX_BASE_URL: mock.codexBaseUrl,
      LWC_CODEX_COMMAND: fake.command,
      // The fake writes its log into the test's control folder, which the sandbox hides.
      LWC_AGENT_SANDBOX: "off",
      // The fake is a Node process: more data memory than codex's default cap from its start.
      LWC_AGENT_MEMORY_MB: String(NODE_MEMORY_MB),
      LWC_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group (next dev and its server child), ended as a whole by its pid.
    detached: true,
  });
  server.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  server.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<never>((_, reject) => server!.once("exit", (code) => reject(new Error(`next dev exited with ${code}: ${output}`))));
  exited.catch(() => undefined);
  const deadline = Date.now() + 150_000;
  for (;;) {
    const healthy = await Promise.race([fetch(`${baseUrl}/api/health`).then((r) => r.ok, () => false), exited]);
    if (healthy) break;
    if (Date.now() > deadline) throw new Error(`next dev did not become healthy: ${output}`);
    // Polling a condition (the first compile finishing), not waiting in place of an event.
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, 180_000);

afterAll(async () => {
  if (server?.pid !== undefined && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise<void>((resolve) => server!.once("exit", () => resolve()));
    // SIGKILL to the whole group: no shutdown work of next dev's own (it would spawn a detached telemetry flush).
    process.kill(-server.pid, "SIGKILL");
    await exited;
  }
  if (fake) for (const pid of await spawnedPids()) if (isAlive(pid)) process.kill(pid, "SIGKILL");
  await fake?.remove();
  await mock?.close();
  for (const dir of [copy, serverTmp]) if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

/** Starts agent voice, reads its first event, and ends it; resolves with the pids that served and stayed. */
async function agentVoiceCall(user: SessionClient) {
  const start = await user.json<{ sessionId: string }>(baseUrl, "/realtime/app-server", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ sdp: OFFER_SDP, session: { voice: "cove" } }),
  });
  expect(start.status, JSON.stringify(start.body)).toBe(201);
  const events = await user.request(baseUrl, `/realtime/app-server/${start.body.sessionId}/events`);
  const reader = events.body!.getReader();
  await reader.read(); // session.started
  const closed = await user.request(baseUrl, `/realtime/app-server/${start.body.sessionId}`, { method: "DELETE" });
  expect(closed.status).toBe(200);
  await reader.cancel();
}

/** One POST /responses, read to its end; a wrong status shows the body. */
async function expectReply(user: SessionClient, status: number): Promise<void> {
  const response = await user.request(baseUrl, "/responses", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: responsesBody("hi"),
  });
  const body = await response.text();
  expect(response.status, body.slice(0, 300)).toBe(status);
}

/** The pid that received `thread/start` last: the process that served the latest call. */
async function lastThreadStartPid(): Promise<number | undefined> {
  return (await fake.log()).filter((entry) => entry.dir === "in" && entry.message?.method === "thread/start").at(-1)?.pid;
}

describe("next dev, after a server file is saved", () => {
  it("keeps the person signed in, the rate-limit count and the codex processes", { timeout: 240_000 }, async () => {
    // The rate-limit part needs one fixed window for the whole test.
    await untilWindowHasRoom(MINUTE, 50_000);
    const user = new SessionClient();
    await user.signIn(baseUrl, mock, { accountId: "acct_dev_reload", email: "dev-reload@example.com" });
    for (let i = 0; i < RATE_LIMIT - 1; i += 1) await expectReply(user, 200);

    // One agent-voice call: it leaves the warm spare behind, and nothing else.
    const beforeFirst = new Set(await spawnedPids());
    await agentVoiceCall(user);
    const [, spare] = await waitForNewInitialised(beforeFirst, 2);
    await expect.poll(aliveCodexPids, { timeout: 10_000 }).toEqual([spare]);

    // The save: a real edit (Turbopack ignores a bare touch), with a line that says when the module ran again.
    const marker = `dev-reload-marker-${process.pid}-${Date.now()}`;
    await appendFile(join(copy, "lib", "provider-app.ts"), `\nconsole.log(${JSON.stringify(marker)});\n`);
    await expect
      .poll(async () => (await fetch(`${baseUrl}/api/provider/session`).then((r) => r.text(), () => ""), output.includes(marker)), {
        timeout: 60_000,
        interval: 250,
      })
      .toBe(true);

    const session = await user.json<{ status: string }>(baseUrl, "/session");
    expect(session.body.status).toBe("authenticated");
    await expectReply(user, 200);
    await expectReply(user, 429);

    // The same pool after the save: its spare serves the next call, one new spare replaces it, and
    // when the call ends exactly that one process is left.
    const beforeSecond = new Set(await spawnedPids());
    await agentVoiceCall(user);
    expect(await lastThreadStartPid()).toBe(spare);
    const [newSpare] = await waitForNewInitialised(beforeSecond, 1);
    await expect.poll(aliveCodexPids, { timeout: 10_000 }).toEqual([newSpare]);
  });
});
