/**
 * Test side of the fake app-server: a control folder, a `codex`-like command that runs the fake
 * with it, commands to script it, and its message log (both directions) to check and validate.
 */
import { appendFile, chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const FAKE_PATH = fileURLToPath(new URL("./fake-app-server.mjs", import.meta.url));

/**
 * The memory limit (`limits.memoryMb`) to run the fake under. It is a Node process: Node reserves
 * about 600 MB of data memory when it starts, over codex's default cap (512), which the real codex
 * launcher escapes by exec'ing the native binary before the limits apply.
 */
export const NODE_MEMORY_MB = 4096;

export interface FakeScript {
  start?: "ok" | "realtime_error" | "thread_start_error" | "hang" | "exit_on_start";
  realtimeErrorMessage?: string;
  /** The JSON-RPC error message `thread/start` answers with (start: "thread_start_error"). */
  threadStartErrorMessage?: string;
  answerSdp?: string;
  ignoreStdinEnd?: boolean;
  ignoreSigterm?: boolean;
  /** Answer `initialize` only after this long (a slow start-up). */
  initializeDelayMs?: number;
}

export interface FakeLogEntry {
  pid: number;
  dir?: "in" | "out";
  type?: string;
  message?: Record<string, unknown> & { id?: number | string; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };
  env?: Record<string, string>;
  cwd?: string;
}

export interface FakeAppServer {
  /** The executable to configure as `realtime.agentVoice.command`. */
  command: string;
  dir: string;
  setScript(script: FakeScript): Promise<void>;
  /** Appends one command for the process with a live realtime thread. */
  send(command: Record<string, unknown>): Promise<void>;
  log(): Promise<FakeLogEntry[]>;
  /** Polls the log until `find` returns something (the fake acts asynchronously in another process). */
  waitFor<T>(find: (log: FakeLogEntry[]) => T | undefined, what: string, timeoutMs?: number): Promise<T>;
  remove(): Promise<void>;
}

export async function createFakeAppServer(script: FakeScript = {}): Promise<FakeAppServer> {
  const dir = await mkdtemp(join(tmpdir(), "lwc-fake-app-server-"));
  const command = join(dir, "codex");
  await writeFile(command, `#!/bin/sh\nexec "${process.execPath}" "${FAKE_PATH}" --control "${dir}" "$@"\n`);
  await chmod(command, 0o755);
  const setScript = (next: FakeScript) => writeFile(join(dir, "script.json"), JSON.stringify(next));
  await setScript(script);

  async function log(): Promise<FakeLogEntry[]> {
    const text = await readFile(join(dir, "log.jsonl"), "utf8").catch(() => "");
    return text
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as FakeLogEntry);
  }

  return {
    command,
    dir,
    setScript,
    send: (cmd) => appendFile(join(dir, "commands.jsonl"), `${JSON.stringify(cmd)}\n`),
    log,
    async waitFor(find, what, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = find(await log());
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`fake app-server: timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The message our bridge sent in answer to the fake's server request `method` (the n-th one). */
export function answerTo(log: FakeLogEntry[], method: string, n = 0) {
  const asked = log.filter((e) => e.dir === "out" && e.message?.method === method && e.message.id !== undefined)[n];
  if (!asked) return undefined;
  return log.find(
    (e) => e.pid === asked.pid && e.dir === "in" && e.message?.id === asked.message!.id && e.message?.method === undefined,
  )?.message;
}
