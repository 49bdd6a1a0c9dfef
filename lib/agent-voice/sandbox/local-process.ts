import "server-only";
/**
 * `start()` of the local backends (bwrap, off): codex as a child process of this server. It gets a
 * private temporary home (CODEX_HOME inside it, mode 0700, its config.toml 0600), an empty working
 * folder and a minimal environment; its stdio pipes become the channel (each line capped); its stop
 * always ends the whole process group and removes the folder. The pipes also tie it to this server:
 * if the server dies, stdin closes and app-server exits.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_RPC_LINE_BYTES, type ExceededLimit } from "./limits";
import { readLines } from "./line-reader";
import type { CodexChannel, SandboxExit, SandboxSpawnRequest, SandboxStartRequest, SandboxedProcess, StartedSandbox } from "./types";

/** Grace periods of the stop sequence (each step only if the previous one did not end it). */
const EXIT_AFTER_STDIN_END_MS = 2_000;
const EXIT_AFTER_SIGTERM_MS = 2_000;
const STDERR_TAIL_CHARS = 2_000;
const STDERR_AFTER_EXIT_MS = 200;
/** Each private folder is `<tmpdir>/lwc-codex-<random>`. */
export const HOME_PREFIX = "lwc-codex-";
/** Written into each private folder: the pid of the server that made it (read by the leftover sweep). */
export const OWNER_FILE = ".owner-pid";

/**
 * The child's whole environment. Nothing of the app's own (LWC_SECRET, store credentials, tokens)
 * is passed: only what a program needs to run.
 */
function minimalEnvironment(homeDir: string, codexHome: string, parent = process.env): Record<string, string> {
  const env: Record<string, string> = { HOME: homeDir, CODEX_HOME: codexHome, PATH: parent.PATH ?? "/usr/bin:/bin" };
  if (parent.LANG) env.LANG = parent.LANG;
  return env;
}

function waitFor(done: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    done.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function makeHome(configToml: string | undefined): Promise<{ homeDir: string; codexHome: string; workDir: string }> {
  const homeDir = await mkdtemp(join(tmpdir(), HOME_PREFIX));
  const codexHome = join(homeDir, "codex-home");
  const workDir = join(homeDir, "work");
  try {
    await writeFile(join(homeDir, OWNER_FILE), String(process.pid), { mode: 0o600 });
    await mkdir(codexHome, { mode: 0o700 });
    await mkdir(workDir, { mode: 0o700 });
    if (configToml) await writeFile(join(codexHome, "config.toml"), configToml, { mode: 0o600 });
  } catch (error) {
    await rm(homeDir, { recursive: true, force: true });
    throw error;
  }
  return { homeDir, codexHome, workDir };
}

export async function startLocalProcess(
  name: "bwrap" | "off",
  spawn: (request: SandboxSpawnRequest) => SandboxedProcess,
  request: SandboxStartRequest,
): Promise<StartedSandbox> {
  const { homeDir, codexHome, workDir } = await makeHome(request.configToml);
  let sandboxed: SandboxedProcess;
  try {
    sandboxed = spawn({ command: request.command, args: request.args, homeDir, env: minimalEnvironment(homeDir, codexHome), cwd: workDir, limits: request.limits });
  } catch (error) {
    await rm(homeDir, { recursive: true, force: true });
    throw error;
  }
  const child = sandboxed.process;
  let exitedFlag = false;
  /** Set when the server itself ended the process for a limit (a line over the cap). */
  let endedFor: ExceededLimit | undefined;
  let stderr = "";
  let startError: string | undefined;
  const stderrClosed = new Promise<boolean>((resolve) => child.stderr.once("close", () => resolve(true)));
  const exited = new Promise<SandboxExit>((resolve) => {
    const done = async (code: number | null, signal: NodeJS.Signals | null) => {
      exitedFlag = true;
      // Its last words (an allocation failure) may still be in the pipe when the exit is reported.
      await waitFor(stderrClosed, STDERR_AFTER_EXIT_MS);
      const limit = endedFor ?? sandboxed.exceededLimit({ code, signal }, stderr);
      resolve({ code, signal, ...(limit ? { limit } : {}), ...(startError ? { startError } : {}) });
    };
    child.once("exit", (code, signal) => void done(code, signal));
    child.once("error", (error) => {
      startError = error.message;
      void done(null, null);
    });
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
  });
  // A write after the process died raises EPIPE on the stream: the exit reports that.
  child.stdin.on("error", () => undefined);

  let listener: ((line: string) => void) | undefined;
  const early: string[] = [];
  readLines(
    child.stdout,
    MAX_RPC_LINE_BYTES,
    (line) => (listener ? listener(line) : early.push(line)),
    // Never held whole: a longer line ends the process (and with it the live session).
    () => {
      endedFor = "message";
      sandboxed.teardown();
    },
  );
  const channel: CodexChannel = {
    send(line) {
      if (exitedFlag || child.stdin.destroyed || child.stdin.writableEnded) return;
      child.stdin.write(`${line}\n`);
    },
    onLine(next) {
      listener = next;
      for (const line of early.splice(0)) next(line);
    },
    exited,
    stderrTail: () => stderr,
  };

  let stopping: Promise<void> | undefined;
  async function stopOnce(): Promise<void> {
    if (!exitedFlag) {
      child.stdin.end();
      if (!(await waitFor(exited, EXIT_AFTER_STDIN_END_MS))) {
        sandboxed.terminate();
        if (!(await waitFor(exited, EXIT_AFTER_SIGTERM_MS))) {
          sandboxed.teardown();
          await exited;
        }
      }
    }
    // The launcher may be gone while something it started lingers: end the rest too.
    sandboxed.teardown();
    await rm(homeDir, { recursive: true, force: true });
  }

  // However it ends (stopped, crashed, killed from outside), its folder goes with it.
  void exited.then(async () => {
    sandboxed.teardown();
    await rm(homeDir, { recursive: true, force: true });
  });

  if (child.pid === undefined) {
    const exit = await exited;
    await rm(homeDir, { recursive: true, force: true });
    throw new Error(`could not start the codex executable (${(exit.startError ?? stderr.trim()).slice(0, 200) || "spawn failed"})`);
  }

  return {
    handle: { kind: "local", sandbox: name, instance: process.pid, pid: child.pid, home: homeDir },
    channel,
    workDir,
    applyLimits: () => sandboxed.applyLimits(),
    stop() {
      stopping ??= stopOnce();
      return stopping;
    },
    stopNow() {
      sandboxed.teardown();
      rmSync(homeDir, { recursive: true, force: true });
    },
  };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the private folders left by a server that was killed outright. A folder is removed only
 * when the server that made it (its `.owner-pid`) is no longer running; one without an owner file
 * is not ours to judge and stays.
 */
export async function sweepLeftoverFolders(): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(HOME_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    const owner = Number(await readFile(join(dir, OWNER_FILE), "utf8").catch(() => ""));
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && !isRunning(owner)) {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }
}
