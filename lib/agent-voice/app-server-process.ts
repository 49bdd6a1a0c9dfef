import "server-only";
/**
 * One `codex app-server` child process: a private temporary home (CODEX_HOME inside it, mode
 * 0700), an empty working folder, a minimal environment, JSON-RPC on stdio, and a close that
 * always ends the whole process group and removes the folder. When processes are made, handed
 * out and ended is decided in one place: codex-processes.ts.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRpcConnection, METHOD_NOT_FOUND, RpcError, type RpcConnection, type RpcHandlers } from "./json-rpc";
import { MAX_RPC_LINE_BYTES, type AgentLimits, type ExceededLimit } from "./sandbox/limits";
import type { AgentSandbox, SandboxedProcess } from "./sandbox/types";
import { SandboxUnavailableError } from "./sandbox/unavailable";

/** Grace periods of the close sequence (each step only if the previous one did not end it). */
const EXIT_AFTER_STDIN_END_MS = 2_000;
const EXIT_AFTER_SIGTERM_MS = 2_000;
const STDERR_TAIL_CHARS = 2_000;
const STDERR_AFTER_EXIT_MS = 200;
/** Each private folder is `<tmpdir>/lwc-codex-<random>`. */
export const HOME_PREFIX = "lwc-codex-";
/** Written into each private folder: the pid of the server that made it (read by the leftover sweep). */
export const OWNER_FILE = ".owner-pid";

export interface AppServerProcess {
  pid: number;
  /** The private temporary folder (HOME); CODEX_HOME and the working folder are inside it. */
  homeDir: string;
  codexHome: string;
  workDir: string;
  rpc: RpcConnection;
  /** Where notifications and server requests go; replaceable (a warm process gets its owner later). */
  setHandlers(handlers: RpcHandlers): void;
  /** Puts it under its limits (memory, processes, CPU time): once it answered `initialize`, before it serves anyone. */
  applyLimits(): Promise<void>;
  /** Resolves when the process has exited (for whatever reason); `limit` when going over one ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; limit?: ExceededLimit }>;
  hasExited(): boolean;
  /** The last stderr output, for a start-failure message (never logged whole). */
  stderrTail(): string;
  /** End stdin, wait, SIGTERM, wait, SIGKILL (the whole process group); then remove the folder. */
  close(): Promise<void>;
  /** SIGKILL to everything it started, at once and synchronously (the server's last moment). */
  killNow(): void;
}

const ignoreAll: RpcHandlers = {
  onNotification: () => undefined,
  onRequest: async (method) => {
    throw new RpcError(METHOD_NOT_FOUND, `${method} is not supported by this client`);
  },
};

/**
 * The child's whole environment. Nothing of the app's own (LWC_SECRET, store credentials, tokens)
 * is passed: only what a program needs to run.
 */
function minimalEnvironment(homeDir: string, codexHome: string, parent = process.env): Record<string, string> {
  const env: Record<string, string> = { HOME: homeDir, CODEX_HOME: codexHome, PATH: parent.PATH ?? "/usr/bin:/bin" };
  if (parent.LANG) env.LANG = parent.LANG;
  return env;
}

function waitForExit(exited: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    exited.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export async function spawnAppServer(options: { command: string; configToml?: string; sandbox: AgentSandbox; limits: AgentLimits }): Promise<AppServerProcess> {
  // Fail closed: never a process outside the sandbox it was configured with, or one that would
  // show the app's folder (checked again here, at each spawn).
  const sandboxStatus = await options.sandbox.status(options.command);
  if (!sandboxStatus.available) throw new SandboxUnavailableError(sandboxStatus.reason, sandboxStatus.fix);
  const homeDir = await mkdtemp(join(tmpdir(), HOME_PREFIX));
  const codexHome = join(homeDir, "codex-home");
  const workDir = join(homeDir, "work");
  try {
    await writeFile(join(homeDir, OWNER_FILE), String(process.pid), { mode: 0o600 });
    await mkdir(codexHome, { mode: 0o700 });
    await mkdir(workDir, { mode: 0o700 });
    if (options.configToml) await writeFile(join(codexHome, "config.toml"), options.configToml, { mode: 0o600 });
  } catch (error) {
    await rm(homeDir, { recursive: true, force: true });
    throw error;
  }

  // Inside the sandbox (docs/agent-voice.md#the-sandbox): it sees only what it needs and writes only
  // its home. The handle ends everything the process started (the codex launcher, the native
  // binary). The pipes still tie it to us: if this server dies, stdin closes and app-server exits.
  let sandboxed: SandboxedProcess;
  try {
    sandboxed = options.sandbox.spawn({
      command: options.command,
      args: ["app-server"],
      homeDir,
      env: minimalEnvironment(homeDir, codexHome),
      cwd: workDir,
      limits: options.limits,
    });
  } catch (error) {
    await rm(homeDir, { recursive: true, force: true });
    throw error;
  }
  const child = sandboxed.process;
  let exitedFlag = false;
  /** Set when the server itself ended the process for a limit (a JSON-RPC line over the cap). */
  let endedFor: ExceededLimit | undefined;
  let stderr = "";
  /** Why the executable did not start (Node's words, with the command's path): for the log line. */
  let spawnError: string | undefined;
  const stderrClosed = new Promise<boolean>((resolve) => child.stderr.once("close", () => resolve(true)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; limit?: ExceededLimit }>((resolve) => {
    const done = async (code: number | null, signal: NodeJS.Signals | null) => {
      exitedFlag = true;
      // Its last words (an allocation failure) may still be in the pipe when the exit is reported.
      await waitForExit(stderrClosed, STDERR_AFTER_EXIT_MS);
      const limit = endedFor ?? sandboxed.exceededLimit({ code, signal }, stderr);
      resolve(limit ? { code, signal, limit } : { code, signal });
    };
    child.once("exit", (code, signal) => void done(code, signal));
    child.once("error", (error) => {
      spawnError = error.message;
      void done(null, null);
    });
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
  });

  let handlers = ignoreAll;
  const rpc = createRpcConnection(
    child.stdout,
    child.stdin,
    {
      onNotification: (method, params) => handlers.onNotification(method, params),
      onRequest: (method, params) => handlers.onRequest(method, params),
    },
    {
      maxLineBytes: MAX_RPC_LINE_BYTES,
      // Never held whole: a longer line ends the process (and with it the live session).
      onLineTooLong: () => {
        endedFor = "message";
        sandboxed.teardown();
      },
    },
  );
  void exited.then(() => rpc.close("the app-server process exited"));

  let closing: Promise<void> | undefined;
  async function closeOnce(): Promise<void> {
    if (!exitedFlag) {
      child.stdin.end();
      if (!(await waitForExit(exited, EXIT_AFTER_STDIN_END_MS))) {
        sandboxed.terminate();
        if (!(await waitForExit(exited, EXIT_AFTER_SIGTERM_MS))) {
          sandboxed.teardown();
          await exited;
        }
      }
    }
    // The launcher may be gone while something it started lingers: end the rest too.
    sandboxed.teardown();
    rpc.close("closed");
    await rm(homeDir, { recursive: true, force: true });
  }

  // However it ends (closed, crashed, killed from outside), its folder goes with it.
  void exited.then(async () => {
    sandboxed.teardown();
    await rm(homeDir, { recursive: true, force: true });
  });

  if (child.pid === undefined) {
    await exited;
    await rm(homeDir, { recursive: true, force: true });
    throw new Error(`could not start the codex executable (${(spawnError ?? stderr.trim()).slice(0, 200) || "spawn failed"})`);
  }

  return {
    pid: child.pid,
    homeDir,
    codexHome,
    workDir,
    rpc,
    setHandlers(next) {
      handlers = next;
    },
    applyLimits: () => sandboxed.applyLimits(),
    exited,
    hasExited: () => exitedFlag,
    stderrTail: () => stderr,
    close() {
      closing ??= closeOnce();
      return closing;
    },
    killNow: () => sandboxed.teardown(),
  };
}
