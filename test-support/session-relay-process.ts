/**
 * Test support: the session relay (lib/agent-voice/relay/session-relay-script.ts) as its own
 * process on the host, running a command (the echo child, or the real codex): the script written
 * to a private folder, `node` started with it, and resolved once it said it listens.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sessionRelayCommand, SESSION_RELAY_SCRIPT } from "@/lib/agent-voice/relay/session-relay-script";
import type { RelayAddress } from "@/lib/agent-voice/relay/relay-http";

/** The echo child: a stand-in for codex (test-support/relay-echo-child.mjs). */
export const ECHO_CHILD = join(import.meta.dirname, "relay-echo-child.mjs");

export interface RelayProcess {
  child: ChildProcess;
  pid: number;
  codexPid: number;
  epoch: string;
  address: RelayAddress;
  /** The folder with the script (and the socket, when it listens on one). */
  folder: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  /** SIGKILL to the relay (not to codex), then removes the folder. */
  kill(): Promise<void>;
}

interface StartOptions {
  command: string[];
  tokenSha256: string;
  /** `tcp` (127.0.0.1, any free port) or `socket` (relay.sock in its folder). Default socket. */
  transport?: "tcp" | "socket";
  /** Listen exactly here (a socket path), instead of a new one. */
  socketPath?: string;
  heartbeatMs?: number;
  abandonAfterMs?: number;
  bufferBytes?: number;
  env?: Record<string, string>;
  /** The relay's (and so codex's) working folder. */
  cwd?: string;
}

export async function startRelayProcess(options: StartOptions): Promise<RelayProcess> {
  const folder = mkdtempSync(join(tmpdir(), "lwc-relay-test-"));
  const scriptPath = join(folder, "session-relay.cjs");
  writeFileSync(scriptPath, SESSION_RELAY_SCRIPT, { mode: 0o400 });
  const listen = options.transport === "tcp" ? "127.0.0.1:0" : (options.socketPath ?? join(folder, "relay.sock"));
  const [node, ...args] = sessionRelayCommand(
    {
      node: process.execPath,
      scriptPath,
      listen,
      tokenSha256: options.tokenSha256,
      ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      ...(options.abandonAfterMs === undefined ? {} : { abandonAfterMs: options.abandonAfterMs }),
      ...(options.bufferBytes === undefined ? {} : { bufferBytes: options.bufferBytes }),
    },
    options.command,
  );
  const child = spawn(node!, args, {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...options.env } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4_000)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const ready = await new Promise<{ address: string; epoch: string; codexPid: number }>((resolve, reject) => {
    void exited.then(() => rmSync(folder, { recursive: true, force: true }));
    let stdout = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      stdout += chunk;
      const newline = stdout.indexOf("\n");
      if (newline !== -1) resolve(JSON.parse(stdout.slice(0, newline)) as { address: string; epoch: string; codexPid: number });
    });
    void exited.then(({ code }) => reject(new Error(`the relay exited (${code}) before it listened: ${stderr}`)));
  });
  return {
    child,
    pid: child.pid!,
    codexPid: ready.codexPid,
    epoch: ready.epoch,
    address: ready.address.startsWith("/") ? { socketPath: ready.address } : { url: `http://${ready.address}` },
    folder,
    exited,
    stderr: () => stderr,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** True while the process exists and is not a zombie. */
export function processAlive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    return readFileSync(stat, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

/** Polls a condition the OS gives no event for (a process that is not our child going away). */
export async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition still false");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
