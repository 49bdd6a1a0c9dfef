import "server-only";
/**
 * The bubblewrap (`bwrap`) sandbox: every codex process runs in its own PID, IPC, UTS, cgroup and
 * network namespaces with no capabilities, on an empty read-only root that shows only:
 *
 * - read-only: a short list of system paths (shared libraries, CA certificates, zoneinfo, name
 *   resolution: visible-paths.ts), the command's own folder or package, the program its `#!` line
 *   names and its interpreter (command-files.ts), the server's node binary (that one file: the
 *   egress relay runs with it) and the process's egress folder (sandbox-network.ts), and the extra
 *   paths the operator lists. Never a path that is or holds the app's folder, the server user's
 *   home or an env file the app read (exposure.ts): then the sandbox is unavailable;
 * - writable: the process's private home, a tmpfs of at most `LWC_AGENT_HOME_MB` (private-home.ts);
 * - its own /proc (only its own processes, the host kernel's parts covered: proc-masks.ts) and a
 *   minimal /dev;
 * - its own network namespace, whose only way out is the server's egress proxy for the allowed
 *   upstream hosts (sandbox-network.ts).
 *
 * Memory, processes and CPU time are limited by local-limiter.ts once the process has started (the
 * whole process group: the relay and codex alike). bwrap itself is started with the process's own
 * minimal environment (with a new PID namespace bwrap is PID 1 inside, and /proc/1/environ is
 * readable there), and its command line carries paths only, never a secret.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandFiles, findExecutable, type VisiblePath } from "./command-files";
import { formatTarget } from "./egress-allow-list";
import { RELAY_ERROR_PREFIX } from "./egress-relay-script";
import { findExposure } from "./exposure";
import { MIB } from "./limits";
import { createLocalLimiter, type ProcessLimiter } from "./local-limiter";
import { privateHomeArgs } from "./private-home";
import { procMaskArgs } from "./proc-masks";
import { openSandboxNetwork, relayNode, type SandboxNetwork, type SandboxNetworkOptions } from "./sandbox-network";
import { startLocalProcess } from "./local-process";
import type { LocalSandbox, SandboxLimits, SandboxSpawnRequest, SandboxStatus, SandboxedProcess } from "./types";
import { groupHandle } from "./process-group";
import { SandboxUnavailableError } from "./unavailable";
import { hostRealPath, visiblePathArgs, visiblePaths } from "./visible-paths";

const PROBE_TIMEOUT_MS = 10_000;
const REASON_CHARS = 300;
/** The probe's home: a tmpfs like a real one (its host folder holds only the probe's egress folder). */
const PROBE_HOME_BYTES = MIB;

interface BwrapSandboxOptions {
  /** Extra host paths shown read-only (LWC_AGENT_SANDBOX_READONLY_PATHS). Each must exist. */
  readOnlyPaths?: string[];
  /** The bwrap executable. Default `bwrap`, looked up on the server's PATH. */
  bwrapPath?: string;
  /** Where the memory, process and CPU limits come from. Default: this host's (local-limiter.ts). */
  limiter?: ProcessLimiter;
  /** What the sandbox's own network lets through (sandbox-network.ts). Default: nothing at all. */
  network?: SandboxNetworkOptions;
}

const INSTALL_FIX =
  "Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora/RHEL: dnf install bubblewrap), " +
  "or set LWC_AGENT_SANDBOX=off to run codex unsandboxed (not recommended: docs/agent-voice.md#the-sandbox).";
const NAMESPACES_FIX =
  "bwrap is installed but may not create namespaces here. On a host: allow unprivileged user namespaces " +
  "(sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ the AppArmor profile for bwrap, or " +
  "sysctl kernel.apparmor_restrict_unprivileged_userns=0). In a container: podman run --security-opt 'unmask=/proc/*'; " +
  "docker run --security-opt seccomp=agent-voice-seccomp.json (beside the Dockerfile) --security-opt systempaths=unconfined; " +
  "with AppArmor also --security-opt apparmor=unconfined (docs/deploy.md#in-a-container); never --privileged. " +
  "The sandbox also needs a network namespace of its own (clone/unshare with CLONE_NEWNET, and its loopback " +
  "interface brought up inside); a host or profile that forbids only that must allow it too. " +
  "Serverless platforms cannot run it. Or set LWC_AGENT_SANDBOX=off (not recommended: docs/agent-voice.md#the-sandbox).";
const RELAY_FIX =
  "The sandbox's first process, the egress relay, runs with the server's own node binary (process.execPath), shown " +
  "inside as that one file; it needs its shared libraries in the system library folders the sandbox shows " +
  "(docs/agent-voice.md#the-sandbox). Run the server with a node linked against the system's libraries (an official " +
  "build, or the distribution's), or set LWC_AGENT_SANDBOX=off (not recommended: docs/agent-voice.md#the-sandbox).";

/** The command's own paths, or none when it cannot be found (the start then fails saying so, with a 502). */
function commandPaths(command: string, env: Record<string, string>): VisiblePath[] {
  try {
    return commandFiles(command, env).paths;
  } catch {
    return [];
  }
}

/** The node binary the sandbox's egress relay runs with: that one file, at its own path (sandbox-network.ts). */
function relayNodePath(): VisiblePath {
  return { host: hostRealPath(relayNode()), inside: relayNode(), source: "network" };
}

/**
 * The whole bwrap argument list. Order matters: mounts apply in order, so the network's binds come
 * after the home's tmpfs (its folder lies inside the home), /proc and /dev after every bind (a later
 * bind over / would put the host's /proc back), the /proc masks right after /proc, and the root is
 * made read-only last.
 */
function bwrapArguments(input: {
  visible: ReturnType<typeof visiblePaths>;
  homeDir: string;
  homeBytes: number;
  network: Pick<SandboxNetwork, "args" | "command" | "folder">;
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
    ...privateHomeArgs(input.homeDir, input.homeBytes, [input.network.folder]),
    ...input.network.args,
    "--proc",
    "/proc",
    ...procMaskArgs(),
    "--dev",
    "/dev",
    "--remount-ro",
    "/",
    ...(input.cwd ? ["--chdir", input.cwd] : []),
    "--",
    ...input.network.command(input.command),
  ];
}

export function createBwrapSandbox(options: BwrapSandboxOptions = {}): LocalSandbox {
  const extraReadOnly = options.readOnlyPaths ?? [];
  const limiter = options.limiter ?? createLocalLimiter();
  const networkOptions: SandboxNetworkOptions = options.network ?? { allow: [] };
  let bwrap: string | undefined;
  let checked: Promise<SandboxStatus> | undefined;

  /**
   * What a process for `command` would see (the relay's node and, at a spawn, its egress folder
   * included), refused when it would show the app's folder, the home or an env file the app read.
   */
  function shown(command: string, env: Record<string, string>, egressFolder?: string): ReturnType<typeof visiblePaths> {
    const network: VisiblePath[] = [relayNodePath(), ...(egressFolder ? [{ host: egressFolder, inside: egressFolder, source: "network" as const }] : [])];
    const visible = visiblePaths([...commandPaths(command, env), ...network], extraReadOnly);
    const exposure = findExposure(visible.binds);
    if (exposure) throw new SandboxUnavailableError(exposure.reason, exposure.fix);
    // The egress folder is bound by the network's own arguments, after the home.
    return egressFolder ? { ...visible, binds: visible.binds.filter((path) => path.host !== egressFolder) } : visible;
  }

  /**
   * Runs `true` in a sandbox built exactly like the real ones (the same system paths, a tmpfs home,
   * its own network with the relay as its first process); available only if that exits 0 and the
   * limits can hold.
   */
  async function probe(): Promise<SandboxStatus> {
    const found = findExecutable(options.bwrapPath ?? "bwrap", process.env.PATH);
    if (!found) {
      return { available: false, reason: `bwrap was not found (${options.bwrapPath ?? "bwrap on PATH"})`, fix: INSTALL_FIX };
    }
    const trueCommand = findExecutable("true", "/usr/bin:/bin") ?? "/bin/true";
    const scratch = mkdtempSync(join(tmpdir(), "lwc-sandbox-probe-"));
    let network: SandboxNetwork | undefined;
    try {
      network = openSandboxNetwork(scratch, { allow: [] });
      const args = bwrapArguments({
        visible: shown(trueCommand, { PATH: "/usr/bin:/bin" }, network.folder),
        homeDir: scratch,
        homeBytes: PROBE_HOME_BYTES,
        network,
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
        // The relay's own words, or the loader's or bwrap's about the node binary it runs with.
        const relayFailed = reason.includes(RELAY_ERROR_PREFIX) || reason.includes(relayNode());
        return { available: false, reason: reason.slice(0, REASON_CHARS), fix: relayFailed ? RELAY_FIX : NAMESPACES_FIX };
      }
    } catch (error) {
      if (error instanceof SandboxUnavailableError) return { available: false, reason: error.reason, fix: error.fix };
      const reason = error instanceof Error ? error.message : String(error);
      return { available: false, reason: reason.slice(0, REASON_CHARS), fix: NAMESPACES_FIX };
    } finally {
      await network?.close();
      rmSync(scratch, { recursive: true, force: true });
    }
    const limits = await limiter.status();
    if (!limits.available) return limits;
    bwrap = found;
    return { available: true, limits: limits.mechanism };
  }

  function spawnInside(request: SandboxSpawnRequest): SandboxedProcess {
    if (!bwrap) throw new Error("the bwrap sandbox is not available (status() first)");
    const files = commandFiles(request.command, request.env);
    const network = openSandboxNetwork(request.homeDir, networkOptions);
    let child;
    try {
      const args = bwrapArguments({
        visible: shown(request.command, request.env, network.folder),
        homeDir: request.homeDir,
        homeBytes: request.limits.homeMb * MIB,
        network,
        cwd: request.cwd,
        command: [files.executable, ...request.args],
      });
      // bwrap's own environment is the process's: it is PID 1 inside, and its environ is readable there.
      child = spawn(bwrap, args, {
        cwd: request.homeDir,
        env: { ...request.env, ...network.env } as NodeJS.ProcessEnv,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
    } catch (error) {
      void network.close();
      throw error;
    }
    // bwrap ends only when everything inside has ended (its PID 1 takes the namespace with it).
    child.once("exit", () => void network.close());
    child.once("error", () => void network.close());
    return groupHandle(child, limiter, request.limits);
  }

  return {
    name: "bwrap",
    warmSpare: true,
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
    spawn: spawnInside,
    start: (request) => startLocalProcess("bwrap", spawnInside, request),
    limits(command, env): SandboxLimits {
      const visible = visiblePaths([...commandPaths(command, env), relayNodePath()], extraReadOnly);
      const readOnly = [
        ...visible.links.map(({ link }) => link),
        ...visible.binds.map((path) => path.inside),
        "the process's egress folder (its proxy's socket and the relay's script)",
      ];
      return {
        readOnly,
        writable: ["the process's private home (a tmpfs)"],
        hostProcesses: "hidden",
        network: { namespace: "own", reachable: networkOptions.allow.map(formatTarget) },
      };
    },
  };
}
