/**
 * Private folders left by a server that was killed outright are removed by the next server's first
 * start, and only those: a folder whose server is still running is kept.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, expect, it } from "vitest";
import { loadProtocolValidator, type ProtocolValidator } from "@/test-support/fake-app-server/protocol-schema";
import { startAgentHarness, waitForExit, type AgentHarness } from "./app-server-harness";

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

it("the first start removes folders whose server is gone, and keeps the others", async () => {
  const deadPid = spawnSync(process.execPath, ["-e", ""]).pid!;
  const leftover = await mkdtemp(join(tmpdir(), "lwc-codex-"));
  await writeFile(join(leftover, ".owner-pid"), String(deadPid));
  const alive = await mkdtemp(join(tmpdir(), "lwc-codex-"));
  await writeFile(join(alive, ".owner-pid"), String(process.ppid));
  const unowned = await mkdtemp(join(tmpdir(), "lwc-codex-"));
  try {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    expect(await exists(leftover)).toBe(false);
    expect(await exists(alive)).toBe(true);
    expect(await exists(unowned)).toBe(true);
    const pid = await h.livePid();
    await client.request("DELETE", `/realtime/app-server/${sessionId}`);
    await waitForExit(pid);
  } finally {
    await rm(alive, { recursive: true, force: true });
    await rm(unowned, { recursive: true, force: true });
    await rm(leftover, { recursive: true, force: true });
  }
});
