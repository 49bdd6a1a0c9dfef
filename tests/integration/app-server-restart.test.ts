/**
 * A server killed outright (SIGKILL) cannot clean up: its codex processes exit when their stdin
 * closes, but their private folders (which can hold what codex logged) stay on disk. The next
 * server removes them when it starts, before and without any agent start. The server here is a
 * real Node process running the handler (test-support/handler-process.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { createFakeAppServer, type FakeAppServer } from "@/test-support/fake-app-server/control";
import { createEvidence, signIn, TEST_SECRET, TestClient } from "./harness";
import { OFFER_SDP, isAlive, waitForExit } from "./app-server-harness";

const projectRoot = join(import.meta.dirname, "..", "..");
let mock: MockUpstream;
let fake: FakeAppServer;
/**
 * The servers' temp folder, where the session folders go: a private one, because any other agent-voice
 * server starting on this machine sweeps the shared one, and would remove a killed server's folders first.
 */
let serversTmp: string;
const servers: ChildProcess[] = [];

beforeAll(async () => {
  mock = await startMockUpstream();
  fake = await createFakeAppServer();
  serversTmp = await mkdtemp(join(tmpdir(), "lwc-restart-test-"));
});
afterAll(async () => {
  for (const server of servers) if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
  for (const entry of await fake.log()) if (entry.type === "spawned" && isAlive(entry.pid)) process.kill(-entry.pid, "SIGKILL");
  await fake.remove();
  await mock.close();
  if (serversTmp) await rm(serversTmp, { recursive: true, force: true });
});

/** Starts the server process and resolves with its port once it serves. */
async function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "test-support/handler-process.ts"], {
    cwd: projectRoot,
    env: {
      NODE_ENV: "production",
      TMPDIR: serversTmp,
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      LWC_SECRET: TEST_SECRET,
      LWC_ISSUER_URL: mock.issuer,
      LWC_CODEX_BASE_URL: mock.codexBaseUrl,
      LWC_CODEX_COMMAND: fake.command,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  servers.push(child);
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}: ${output}`)));
  });
  return { child, port };
}

const exists = (path: string) => stat(path).then(() => true, () => false);

it("after a SIGKILL, the restarted server removes the dead server's session folders at start-up", async () => {
  const first = await startServer();
  const client = new TestClient(first.port, createEvidence());
  await signIn({ mock }, client);
  const reply = await client.post("/realtime/app-server", { sdp: OFFER_SDP, session: { voice: "cove" } });
  expect(reply.status).toBe(201);
  const spawned = (await fake.log()).find((entry) => entry.type === "spawned")!;
  const home = spawned.env!.HOME!;
  expect(home.startsWith(serversTmp)).toBe(true);
  expect(await exists(home)).toBe(true);

  const killed = new Promise((resolve) => first.child.once("exit", resolve));
  first.child.kill("SIGKILL");
  await killed;
  // Its stdin closed: codex exits on its own, but nothing removed its folder.
  await waitForExit(spawned.pid);
  expect(await exists(home)).toBe(true);

  const second = await startServer();
  // No agent start on the new server: the start-up sweep alone removes the folder.
  await expect.poll(() => exists(home), { timeout: 5_000 }).toBe(false);
  expect((await fake.log()).filter((entry) => entry.type === "spawned")).toHaveLength(1);
  second.child.kill("SIGTERM");
});
