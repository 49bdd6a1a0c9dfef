/**
 * Private folders left by a server that was killed outright are removed when the next handler is
 * created (no agent start needed), and only those: a folder whose server is still running is kept,
 * and so is one without an owner file. (A real server process killed and restarted:
 * app-server-restart.test.ts.)
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, expect, it } from "vitest";
import { loadProtocolValidator, type ProtocolValidator } from "@/test-support/fake-app-server/protocol-schema";
import { startAgentHarness, type AgentHarness } from "./app-server-harness";

let validator: ProtocolValidator;
let h: AgentHarness | undefined;

beforeAll(() => {
  validator = loadProtocolValidator();
});

afterEach(async () => {
  await h?.finish(validator);
  h = undefined;
});

const exists = (path: string) => stat(path).then(() => true, () => false);

it("creating the handler removes folders whose server is gone, and keeps the others", async () => {
  const deadPid = spawnSync(process.execPath, ["-e", ""]).pid!;
  const leftover = await mkdtemp(join(tmpdir(), "lwc-codex-"));
  await writeFile(join(leftover, ".owner-pid"), String(deadPid));
  const alive = await mkdtemp(join(tmpdir(), "lwc-codex-"));
  await writeFile(join(alive, ".owner-pid"), String(process.ppid));
  const unowned = await mkdtemp(join(tmpdir(), "lwc-codex-"));
  try {
    h = await startAgentHarness();
    await expect.poll(() => exists(leftover), { timeout: 5_000 }).toBe(false);
    expect(await exists(alive)).toBe(true);
    expect(await exists(unowned)).toBe(true);
    expect(await h.pids()).toEqual([]);
  } finally {
    await rm(alive, { recursive: true, force: true });
    await rm(unowned, { recursive: true, force: true });
    await rm(leftover, { recursive: true, force: true });
  }
});
