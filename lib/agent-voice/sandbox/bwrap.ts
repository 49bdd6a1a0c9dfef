import "server-only";
/**
 * The bubblewrap (`bwrap`) sandbox: every codex process runs in its own PID, IPC, UTS and cgroup
 * namespaces with no capabilities, on an empty read-only root that shows only:
 *
 * - read-only: a short list of system paths (shared libraries, CA certificates, zoneinfo, name
 *   resolution: visible-paths.ts), the command's own folder or package, the program its `#!` line
 *   names and its interpreter (command-files.ts), and the extra paths the operator lists. Never a
 *   path that is or holds the app's folder or an env file the app read (exposure.ts): then the
 *   sandbox is unavailable;
 * - writable: the process's private home, a tmpfs of at most `LWC_AGENT_HOME_MB` (private-home.ts);
 * - its own /proc (only its own processes, the host kernel's parts covered: proc-masks.ts) and a
 *   minimal /dev.
 *
 * Memory, processes and CPU time are limited by local-limiter.ts once the process has started. The
 * network is the host's: codex must reach the upstream. bwrap itself is started with the
 * process's own minimal environment (with a new PID namespace bwrap is PID 1 inside, and
 * /proc/1/environ is readable there), and its command line carries paths only, never a secret.
 */
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandFiles, findExecutable, type VisiblePath } from "./command-files";
import { findExposure } from "./exposure";
import { MIB } from "./limits";
import { createLocalLimiter, type ProcessLimiter } from "./local-limiter";
import { privateHomeArgs } from "./private-home";
import { procMaskArgs } from "./proc-masks";
import type { AgentSandbox, SandboxLimits, SandboxSpawnRequest, SandboxStatus, SandboxedProcess } from "./types";
import { groupHandle } from "./process-group";
import { SandboxUnavailableError } from "./unavailable";
import { visiblePathArgs, visiblePaths } from "./visible-paths";

const PROBE_TIMEOUT_MS = 10_000;
const REASON_CHARS = 300;
/** The probe's home: a tmpfs like a real one, at a path no host folder backs. */
const PROBE_HOME = join(tmpdir(), "lwc-codex-probe");
const PROBE_HOME_BYTES = MIB;

interface BwrapSandboxOptions {
  /** Extra host paths shown read-only (LWC_AGENT_SANDBOX_READONLY_PATHS). Each must exist. */
  readOnlyPaths?: string[];
  /** The bwrap executable. Default `bwrap`, looked up on the server's PATH. */
  bwrapPath?: string;
  /** Where the memory, process and CPU limits come from. Default: this host's (local-limiter.ts). */
  limiter?: ProcessLimiter;
}

const INSTALL_FIX =
  "Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora/RHEL: dnf install bubblewrap), " +
  "or set LWC_AGENT_SANDBOX=off to run codex unsandboxed (not recommended: docs/agent-voice.md#the-sandbox).";
const NAMESPACES_FIX =
  "bwrap is installed but may not create namespaces here. On a host: allow unprivileged user namespaces " +
  "(sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ the AppArmor profile for bwrap, or " +
  "sysctl kernel.apparmor_restrict_unprivileged_userns=0). In Docker: run the container with a seccomp profile " +
  "that also allows clone/unshare with namespace flags, mount, pivot_root and setns " +
  "(--security-opt seccomp=<that profile.json>) and --security-opt apparmor=unconfined; never --privileged. " +
  "Serverless platforms cannot run it. Or set LWC_AGENT_SANDBOX=off (not recommended: docs/agent-voice.md#the-sandbox).";

/** The command's own paths, or none when it cannot be found (the start then fails saying so, with a 502). */
function commandPaths(command: string, env: Record<string, string>): VisiblePath[] {
  try {
    return commandFiles(command, env).paths;
  } catch {
    return [];
  }
}

/**
 * The whole bwrap argument list. Order matters: mounts apply in order, so /proc and /dev come after
 * every bind (a later bind over / would put the host's /proc back), the /proc masks right after
 * /proc, and the root is made read-only last.
 */
function bwrapArguments(input: {
  visible: ReturnType<typeof visiblePaths>;
  homeDir: string;
  homeBytes: number;
  cwd?: string;
  command: string[];
}): string[] {
  return [
    "--die-with-parent",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
    ...visiblePathArgs(input.visible),
    ...privateHomeArgs(input.homeDir, input.homeBytes),
    "--proc",
    "/proc",
    ...procMaskArgs(),
    "--dev",
    "/dev",
    "--remount-ro",
    "/",
    ...(input.cwd ? ["--chdir", input.cwd] : []),
    "--",
    ...input.command,
  ];
}

export function createBwrapSandbox(options: BwrapSandboxOptions = {}): AgentSandbox {
  const extraReadOnly = options.readOnlyPaths ?? [];
  const limiter = options.limiter ?? createLocalLimiter();
  let bwrap: string | undefined;
  let checked: Promise<SandboxStatus> | undefined;

  /**
   * Runs `true` in a sandbox built exactly like the real ones (its own binary shown besides the
   * system paths); available only if that exits 0 and the limits can hold.
   */
  async function probe(): Promise<SandboxStatus> {
    const found = findExecutable(options.bwrapPath ?? "bwrap", process.env.PATH);
    if (!found) {
      return { available: false, reason: `bwrap was not found (${options.bwrapPath ?? "bwrap on PATH"})`, fix: INSTALL_FIX };
    }
    const trueCommand = findExecutable("true", "/usr/bin:/bin") ?? "/bin/true";
    const args = bwrapArguments({
      visible: visiblePaths([{ host: trueCommand, inside: trueCommand, source: "system" }], extraReadOnly),
      homeDir: PROBE_HOME,
      homeBytes: PROBE_HOME_BYTES,
      command: [trueCommand],
    });
    const outcome = await new Promise<{ code: number | null; stderr: string; error?: string }>((resolve) => {
      const env: Record<string, string> = { PATH: "/usr/bin:/bin" };
      const child = spawn(found, args, { env: env as NodeJS.ProcessEnv, stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.setEncoding("utf8");
      child.stderr.on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-REASON_CHARS)));
      const timer = setTimeout(() => child.kill("SIGKILL"), PROBE_TIMEOUT_MS);
      child.once("error", (error) => {
        clearTimeout(timer);
        resolve({ code: null, stderr, error: error.message });
      });
      child.once("close", (code) => {
        clearTimeout(timer);
        resolve({ code, stderr });
      });
    });
    if (outcome.code !== 0) {
      const reason = (outcome.error ?? outcome.stderr.trim()) || `bwrap exited with code ${outcome.code}`;
      return { available: false, reason: reason.slice(0, REASON_CHARS), fix: NAMESPACES_FIX };
    }
    const limits = await limiter.status();
    if (!limits.available) return limits;
    bwrap = found;
    return { available: true, limits: limits.mechanism };
  }

  /** What a process for `command` would see, refused when it holds the app's folder or an env file it read. */
  function shown(command: string, env: Record<string, string>): ReturnType<typeof visiblePaths> {
    const visible = visiblePaths(commandPaths(command, env), extraReadOnly);
    const exposure = findExposure(visible.binds);
    if (exposure) throw new SandboxUnavailableError(exposure.reason, exposure.fix);
    return visible;
  }

  return {
    name: "bwrap",
    async status(command) {
      checked ??= probe();
      const status = await checked;
      if (!status.available) return status;
      try {
        shown(command, { PATH: process.env.PATH ?? "/usr/bin:/bin" });
      } catch (error) {
        if (error instanceof SandboxUnavailableError) return { available: false, reason: error.reason, fix: error.fix };
        throw error;
      }
      return status;
    },
    spawn(request: SandboxSpawnRequest): SandboxedProcess {
      if (!bwrap) throw new Error("the bwrap sandbox is not available (status() first)");
      const files = commandFiles(request.command, request.env);
      const args = bwrapArguments({
        visible: shown(request.command, request.env),
        homeDir: request.homeDir,
        homeBytes: request.limits.homeMb * MIB,
        cwd: request.cwd,
        command: [files.executable, ...request.args],
      });
      // bwrap's own environment is the process's: it is PID 1 inside, and its environ is readable there.
      const child = spawn(bwrap, args, {
        cwd: request.homeDir,
        env: request.env as NodeJS.ProcessEnv,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
      return groupHandle(child, limiter, request.limits);
    },
    limits(command, env): SandboxLimits {
      const visible = visiblePaths(commandPaths(command, env), extraReadOnly);
      const readOnly = [...visible.links.map(({ link }) => link), ...visible.binds.map((path) => path.inside)];
      return { readOnly, writable: ["the process's private home (a tmpfs)"], hostProcesses: "hidden", network: "host" };
    },
  };
}
