/**
 * Agent voice and the production server's life: SIGTERM to `next start`, and to `npm start` (how
 * people run it: npm → sh → next start), ends every codex process (the live one, with its event
 * stream open, and the spare) and removes its folder within 10 s; after a SIGKILL the restarted
 * server removes the folders at start-up. Counted by pid, with the fake app-server as the codex
 * executable. Needs a production build (`npm run build`; LWC_DIST_DIR picks another folder).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { createFakeAppServer, NODE_MEMORY_MB, type FakeAppServer } from "@/test-support/fake-app-server/control";
import { freePort } from "@/test-support/free-port";
import { TEST_SECRET } from "./cluster";
import { SessionClient } from "./session-client";

const projectRoot = join(import.meta.dirname, "..", "..");
const OFFER_SDP = "v=0\r\no=- 4611 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n";
const distDir = process.env.LWC_DIST_DIR ?? ".next";
let mock: MockUpstream;
let fake: FakeAppServer;
/**
 * The servers' temp folder, where the session folders go: a private one, because any other agent-voice
 * server starting on this machine sweeps the shared one, and would remove a killed server's folders first.
 */
let serversTmp: string;
const servers: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync(join(projectRoot, distDir, "BUILD_ID"))) throw new Error(`No production build in ${distDir}: run \`npm run build\` first.`);
  mock = await startMockUpstream();
  fake = await createFakeAppServer();
  serversTmp = await mkdtemp(join(tmpdir(), "lwc-shutdown-test-"));
});
afterAll(async () => {
  // Each server leads its own process group (npm, sh and next alike): end the whole group.
  for (const server of servers) {
    try {
      process.kill(-server.pid!, "SIGKILL");
    } catch {
      // Gone.
    }
  }
  for (const pid of await spawnedPids()) if (isAlive(pid)) process.kill(-pid, "SIGKILL");
  await fake?.remove();
  await mock?.close();
  if (serversTmp) await rm(serversTmp, { recursive: true, force: true });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const exists = (path: string) => stat(path).then(() => true, () => false);

async function spawnedPids(): Promise<number[]> {
  return (await fake.log()).filter((entry) => entry.type === "spawned").map((entry) => entry.pid);
}

async function homeOf(pid: number): Promise<string> {
  return (await fake.log()).find((entry) => entry.type === "spawned" && entry.pid === pid)!.env!.HOME!;
}

/** `next start` (node, directly) or `npm start` (npm → sh → next start), agent voice on; resolves once healthy. */
async function launch(how: "next" | "npm", port: number): Promise<ChildProcess> {
  const args = ["start", "-p", String(port), "-H", "127.0.0.1"];
  const [command, argv] =
    how === "next" ? [process.execPath, ["node_modules/next/dist/bin/next", ...args]] : ["npm", ["start", "--", ...args.slice(1)]];
  const child = spawn(command, argv, {
    cwd: projectRoot,
    env: {
      ...process.env,
      // npm and the `next` it runs use this node.
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      NODE_ENV: "production",
      TMPDIR: serversTmp,
      LWC_DIST_DIR: distDir,
      LWC_SECRET: TEST_SECRET,
      LWC_ISSUER_URL: mock.issuer,
      LWC_CODEX_BASE_URL: mock.codexBaseUrl,
      LWC_CODEX_COMMAND: fake.command,
      // The fake writes its log into the test's control folder, which the sandbox hides.
      LWC_AGENT_SANDBOX: "off",
      // The fake is a Node process: more data memory than codex's default cap from its start.
      LWC_AGENT_MEMORY_MB: String(NODE_MEMORY_MB),
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  servers.push(child);
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`${how} start exited with ${code}: ${output}`))));
  exited.catch(() => undefined);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const healthy = await Promise.race([fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.ok, () => false), exited]);
    if (healthy) return child;
    if (Date.now() > deadline) throw new Error(`${how} start did not become healthy: ${output}`);
    // Polling a condition (the server answering), not waiting in place of an event.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A signed-in user with a live agent-voice session and its event stream open. */
async function liveSession(baseUrl: string, accountId: string) {
  const user = new SessionClient();
  await user.signIn(baseUrl, mock, { accountId, email: `${accountId}@example.com` });
  const before = new Set(await spawnedPids());
  const start = await user.json<{ sessionId: string }>(baseUrl, "/realtime/app-server", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ sdp: OFFER_SDP, session: { voice: "cove" } }),
  });
  expect(start.status).toBe(201);
  const events = await user.request(baseUrl, `/realtime/app-server/${start.body.sessionId}/events`);
  const reader = events.body!.getReader();
  await reader.read(); // session.started
  // The live process and, the warm spare being on, the spare after it.
  return { reader, pids: await waitForNewPids(before, 2) };
}

async function waitForNewPids(before: Set<number>, count: number): Promise<number[]> {
  return fake.waitFor((log) => {
    const fresh = log.filter((entry) => entry.type === "spawned" && !before.has(entry.pid)).map((entry) => entry.pid);
    const initialised = fresh.filter((pid) => log.some((entry) => entry.pid === pid && entry.message?.method === "initialized"));
    return initialised.length >= count ? initialised : undefined;
  }, `${count} initialised processes`);
}

describe.each(["next", "npm"] as const)("SIGTERM to %s start", (how) => {
  it("ends every codex process, the live one with its event stream open and the spare, and removes their folders within 10 s", async () => {
    const port = await freePort();
    const server = await launch(how, port);
    const { reader, pids } = await liveSession(`http://127.0.0.1:${port}`, `acct_sigterm_${how}`);
    const homes = await Promise.all(pids.map(homeOf));
    for (const pid of pids) expect(isAlive(pid)).toBe(true);

    const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
    const signalledAt = Date.now();
    server.kill("SIGTERM");
    await expect
      .poll(async () => pids.filter(isAlive).length + (await Promise.all(homes.map(exists))).filter(Boolean).length, { timeout: 10_000, interval: 50 })
      .toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    // The stream the page held ended with the session (not left hanging on a dead server).
    for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) break;
    await exited;
  });
});

describe("SIGKILL to next start", () => {
  it("leaves folders behind that the restarted server removes at start-up, before any agent start", async () => {
    const port = await freePort();
    const server = await launch("next", port);
    const { pids } = await liveSession(`http://127.0.0.1:${port}`, "acct_sigkill");
    const homes = await Promise.all(pids.map(homeOf));
    const killed = new Promise<void>((resolve) => server.once("exit", () => resolve()));
    server.kill("SIGKILL");
    await killed;
    // Their stdin closed: they exit on their own, but nothing removed their folders.
    await expect.poll(() => pids.filter(isAlive).length, { timeout: 10_000 }).toBe(0);
    for (const home of homes) {
      expect(home.startsWith(serversTmp)).toBe(true);
      expect(await exists(home)).toBe(true);
    }

    const spawnedBefore = (await spawnedPids()).length;
    const restarted = await launch("next", await freePort());
    for (const home of homes) expect(await exists(home)).toBe(false);
    expect((await spawnedPids()).length).toBe(spawnedBefore);
    const stopped = new Promise<void>((resolve) => restarted.once("exit", () => resolve()));
    restarted.kill("SIGTERM");
    await stopped;
  });
});
