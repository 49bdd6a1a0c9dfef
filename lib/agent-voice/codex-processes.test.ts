/**
 * The owner of the codex processes, driven directly with its spawn injected: real child processes
 * (the fake app-server, test-support/fake-app-server), counted by pid.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFakeAppServer, type FakeAppServer } from "@/test-support/fake-app-server/control";
import { spawnAppServer, type AppServerProcess } from "./app-server-process";
import { createUnsandboxed } from "./sandbox";
import { agentLimits } from "./sandbox/limits";
import { NODE_MEMORY_MB } from "@/test-support/fake-app-server/control";
import { createCodexProcesses, type CodexProcesses, type CodexProcessesOptions } from "./codex-processes";

let fake: FakeAppServer;
let owner: CodexProcesses | undefined;
const spawned: AppServerProcess[] = [];
const warnings: string[] = [];
const logger = { info: () => undefined, warn: (line: string) => void warnings.push(line), error: () => undefined };

beforeEach(async () => {
  fake = await createFakeAppServer();
  spawned.length = 0;
  warnings.length = 0;
});
afterEach(async () => {
  await owner?.closeAll();
  owner = undefined;
  for (const appServer of spawned) expect(appServer.hasExited(), `process ${pidOf(appServer)}`).toBe(true);
  await fake.remove();
});

/** The process group leader's pid: these processes run locally (unsandboxed). */
function pidOf(appServer: AppServerProcess): number {
  if (appServer.handle.kind !== "local") throw new Error("not a local process");
  return appServer.handle.pid;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A spawn that starts the fake and remembers what it started. */
async function spawnFake(): Promise<AppServerProcess> {
  // The fake shares its control folder with the test, so it runs unsandboxed (the sandbox has tests of
  // its own). It is a Node process, which holds more data memory than codex's default cap from its start.
  const appServer = await spawnAppServer({ command: fake.command, sandbox: createUnsandboxed(), limits: agentLimits({ memoryMb: NODE_MEMORY_MB }) });
  spawned.push(appServer);
  return appServer;
}

function create(overrides: Partial<CodexProcessesOptions> = {}): CodexProcesses {
  owner = createCodexProcesses({ spawn: spawnFake, initTimeoutMs: 5_000, keepWarm: true, logger, ...overrides });
  return owner;
}

const initialised = (pid: number) => async () =>
  (await fake.log()).some((entry) => entry.pid === pid && entry.message?.method === "initialized");

describe("codex processes", () => {
  it("10 concurrent takes: 10 distinct initialised processes, one spare after them, nothing else", async () => {
    const processes = create();
    const taken = await Promise.all(Array.from({ length: 10 }, () => processes.take()));
    expect(new Set(taken.map((appServer) => pidOf(appServer))).size).toBe(10);
    // The client's "initialized" notification is fire-and-forget: the fake logs it a moment after take() resolves.
    for (const appServer of taken) await expect.poll(initialised(pidOf(appServer))).toBe(true);
    await expect.poll(() => spawned.length).toBe(11);
    const spare = spawned.find((appServer) => !taken.includes(appServer))!;
    await expect.poll(initialised(pidOf(spare))).toBe(true);
    expect(processes.running()).toBe(11);
    // The handed-out ones are their takers' to close; closeAll ends them all the same.
    await processes.closeAll();
    for (const appServer of spawned) expect(isAlive(pidOf(appServer))).toBe(false);
  });

  it("keeps at most one spare: takes in a row hand it out and make the next", async () => {
    const processes = create();
    const first = await processes.take();
    await expect.poll(() => spawned.length).toBe(2);
    const spare = spawned[1]!;
    await expect.poll(initialised(pidOf(spare))).toBe(true);
    expect(await processes.take()).toBe(spare);
    await expect.poll(() => spawned.length).toBe(3);
    expect(processes.running()).toBe(3);
    await first.close();
    expect(processes.running()).toBe(2);
  });

  it("at most two processes start up at once", async () => {
    await fake.setScript({ initializeDelayMs: 200 });
    const processes = create({ keepWarm: false });
    await Promise.all(Array.from({ length: 5 }, () => processes.take()));
    let starting = 0;
    let most = 0;
    for (const entry of await fake.log()) {
      if (entry.type === "spawned") starting += 1;
      if (entry.dir === "out" && (entry.message?.result as { userAgent?: string } | undefined)?.userAgent) starting -= 1;
      most = Math.max(most, starting);
    }
    expect(most).toBe(2);
  });

  it("a spare that fails to start is logged, never dropped silently; a take's failure goes to the taker", async () => {
    let calls = 0;
    const processes = create({
      spawn: async () => {
        calls += 1;
        if (calls === 2) throw new Error("spawn refused for the spare");
        return spawnFake();
      },
    });
    await processes.take();
    await expect.poll(() => warnings.length).toBe(1);
    expect(warnings[0]).toContain("the spare codex process did not start: spawn refused for the spare");
    const failing = create({ spawn: async () => Promise.reject(new Error("no such executable")), keepWarm: false });
    await expect(failing.take()).rejects.toThrow("no such executable");
    await processes.closeAll();
  });

  it("a spare that dies is not handed out; closeAll ends everything and refuses later takes", async () => {
    const processes = create();
    await processes.take();
    await expect.poll(() => spawned.length).toBe(2);
    const spare = spawned[1]!;
    await expect.poll(initialised(pidOf(spare))).toBe(true);
    process.kill(-pidOf(spare), "SIGKILL");
    await spare.exited;
    const next = await processes.take();
    expect(next).not.toBe(spare);
    await processes.closeAll();
    expect(processes.running()).toBe(0);
    await expect(processes.take()).rejects.toThrow("shutting down");
  });

  it("closeAll while starts are on their way: they fail, and nothing they spawned outlives it", async () => {
    await fake.setScript({ initializeDelayMs: 300 });
    const processes = create();
    const takes = Promise.allSettled(Array.from({ length: 4 }, () => processes.take()));
    await expect.poll(() => spawned.length).toBeGreaterThan(0);
    await processes.closeAll();
    const results = await takes;
    expect(results.every((result) => result.status === "rejected")).toBe(true);
    for (const appServer of spawned) expect(isAlive(pidOf(appServer))).toBe(false);
  });
});
