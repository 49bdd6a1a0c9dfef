import "server-only";
/**
 * The bubblewrap (`bwrap`) sandbox: every codex process runs in its own PID, IPC, UTS and cgroup
 * namespaces with no capabilities, on an empty read-only root that shows only:
 *
 * - read-only: the system folders (/usr and the /bin, /sbin, /lib* links or folders), the /etc
 *   files name resolution and TLS need (SYSTEM_ETC_FILES), the command's own folder or package
 *   and its interpreter (command-files.ts), and the extra paths the operator lists;
 * - writable: the process's private home, nothing else;
 * - its own /proc (only its own processes) and a minimal /dev;
 * - its own network namespace, whose only way out is the server's egress proxy for the allowed
 *   upstream hosts (sandbox-network.ts).
 *
 * bwrap itself is started with the process's own minimal environment (with a new PID namespace
 * bwrap is PID 1 inside, and /proc/1/environ is readable there), and its command line carries
 * paths only, never a secret.
 */
import { spawn } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { commandFiles, findExecutable, type VisiblePath } from "./command-files";
import { formatTarget } from "./egress-allow-list";
import { RELAY_ERROR_PREFIX } from "./egress-relay-script";
import { openSandboxNetwork, relayNode, type SandboxNetwork, type SandboxNetworkOptions } from "./sandbox-network";
import type { AgentSandbox, SandboxLimits, SandboxSpawnRequest, SandboxStatus, SandboxedProcess } from "./types";
import { groupHandle } from "./process-group";

/** Folders shown read-only as they are on the host (links stay links). */
const SYSTEM_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/** Files and folders of /etc that DNS, TLS and the dynamic loader read. Nothing else of /etc. */
const SYSTEM_ETC_FILES = [
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/nsswitch.conf",
  "/etc/host.conf",
  "/etc/gai.conf",
  "/etc/localtime",
  "/etc/ld.so.cache",
  "/etc/alternatives",
  "/etc/ssl/certs",
  "/etc/ssl/openssl.cnf",
  "/etc/ca-certificates",
  "/etc/pki/tls/certs",
  "/etc/pki/ca-trust",
];
const PROBE_TIMEOUT_MS = 10_000;
const REASON_CHARS = 300;

interface BwrapSandboxOptions {
  /** Extra host paths shown read-only (LWC_AGENT_SANDBOX_READONLY_PATHS). Each must exist. */
  readOnlyPaths?: string[];
  /** The bwrap executable. Default `bwrap`, looked up on the server's PATH. */
  bwrapPath?: string;
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
  "inside as that one file; it needs its shared libraries under the system folders. Run the server with a node " +
  "installed under /usr (or /usr/local), or set LWC_AGENT_SANDBOX=off (not recommended: docs/agent-voice.md#the-sandbox).";

function isUnder(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

/** `--ro-bind` (or `--symlink` for a link such as /bin -> usr/bin) for each system folder present. */
function systemArgs(): string[] {
  const args: string[] = [];
  for (const folder of SYSTEM_FOLDERS) {
    let stat;
    try {
      stat = lstatSync(folder);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(folder), folder);
    else if (stat.isDirectory()) args.push("--ro-bind", folder, folder);
  }
  for (const path of SYSTEM_ETC_FILES) if (existsSync(/* turbopackIgnore: true */ path)) args.push("--ro-bind", path, path);
  return args;
}

/** Paths already visible through a system folder are not bound again. */
function isSystemPath(path: string): boolean {
  return SYSTEM_FOLDERS.some((folder) => isUnder(path, folder));
}

/**
 * The command's own folder is shown whole: refuse when that would be the app's folder or the user's
 * home (or a folder holding either), e.g. LWC_CODEX_COMMAND=./codex-wrapper.sh in the app's root.
 * Paths the operator lists in LWC_AGENT_SANDBOX_READONLY_PATHS are taken as given.
 */
function refuseWideFolders(paths: VisiblePath[]): void {
  for (const path of paths) {
    for (const [what, folder] of [
      ["the app's folder", process.cwd()],
      ["the user's home", homedir()],
    ] as const) {
      if (isUnder(folder, path.host)) {
        throw new Error(
          `the sandbox would show ${what} (${path.host}) because the codex command lives there: put the command in a folder of its own`,
        );
      }
    }
  }
}

function pathArgs(paths: VisiblePath[]): string[] {
  return paths.filter((path) => !isSystemPath(path.inside)).flatMap((path) => ["--ro-bind", path.host, path.inside]);
}

/** The node binary the sandbox's egress relay runs with: that one file (sandbox-network.ts). */
function relayNodePath(): VisiblePath {
  return { host: realpathSync(/* turbopackIgnore: true */ relayNode()), inside: relayNode() };
}

/**
 * The whole bwrap argument list. Order matters: mounts apply in order, so the network's binds come
 * after the home's (its folder lies inside it), /proc and /dev after every bind (a later bind over
 * / would put the host's /proc back), and the root is made read-only last.
 */
function bwrapArguments(input: {
  visible: VisiblePath[];
  extraReadOnly: string[];
  homeDir?: string;
  network: Pick<SandboxNetwork, "args" | "command">;
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
    ...systemArgs(),
    ...pathArgs(input.visible),
    ...pathArgs([relayNodePath()].filter((node) => !input.visible.some((path) => path.inside === node.inside))),
    ...pathArgs(input.extraReadOnly.map((path) => ({ host: path, inside: path }))),
    ...(input.homeDir ? ["--bind", input.homeDir, input.homeDir] : []),
    ...input.network.args,
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--remount-ro",
    "/",
    ...(input.cwd ? ["--chdir", input.cwd] : []),
    "--",
    ...input.network.command(input.command),
  ];
}

export function createBwrapSandbox(options: BwrapSandboxOptions = {}): AgentSandbox {
  const extraReadOnly = options.readOnlyPaths ?? [];
  const networkOptions: SandboxNetworkOptions = options.network ?? { allow: [] };
  let bwrap: string | undefined;
  let checked: Promise<SandboxStatus> | undefined;

  /** Runs `true` in a sandbox built exactly like the real ones (its own network and relay included); available only if that exits 0. */
  async function probe(): Promise<SandboxStatus> {
    const found = findExecutable(options.bwrapPath ?? "bwrap", process.env.PATH);
    if (!found) {
      return { available: false, reason: `bwrap was not found (${options.bwrapPath ?? "bwrap on PATH"})`, fix: INSTALL_FIX };
    }
    const scratch = mkdtempSync(join(tmpdir(), "lwc-sandbox-probe-"));
    let network: SandboxNetwork | undefined;
    try {
      network = openSandboxNetwork(scratch, { allow: [] });
      const args = bwrapArguments({ visible: [], extraReadOnly, network, command: ["true"] });
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
      if (outcome.code === 0) {
        bwrap = found;
        return { available: true };
      }
      const reason = (outcome.error ?? outcome.stderr.trim()) || `bwrap exited with code ${outcome.code}`;
      // The relay's own words, or the loader's or bwrap's about the node binary it runs with.
      const relayFailed = reason.includes(RELAY_ERROR_PREFIX) || reason.includes(relayNode());
      return { available: false, reason: reason.slice(0, REASON_CHARS), fix: relayFailed ? RELAY_FIX : NAMESPACES_FIX };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { available: false, reason: reason.slice(0, REASON_CHARS), fix: NAMESPACES_FIX };
    } finally {
      await network?.close();
      rmSync(scratch, { recursive: true, force: true });
    }
  }

  return {
    name: "bwrap",
    status() {
      checked ??= probe();
      return checked;
    },
    spawn(request: SandboxSpawnRequest): SandboxedProcess {
      if (!bwrap) throw new Error("the bwrap sandbox is not available (status() first)");
      const files = commandFiles(request.command, request.env);
      refuseWideFolders(files.paths);
      const network = openSandboxNetwork(request.homeDir, networkOptions);
      let child;
      try {
        const args = bwrapArguments({
          visible: files.paths,
          extraReadOnly,
          homeDir: request.homeDir,
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
      return groupHandle(child);
    },
    limits(command, env): SandboxLimits {
      const files = commandFiles(command, env);
      const readOnly = [
        ...SYSTEM_FOLDERS.filter((folder) => existsSync(/* turbopackIgnore: true */ folder)),
        ...SYSTEM_ETC_FILES.filter((path) => existsSync(/* turbopackIgnore: true */ path)),
        ...files.paths.filter((path) => !isSystemPath(path.inside)).map((path) => path.inside),
        ...(isSystemPath(relayNode()) || files.paths.some((path) => path.inside === relayNode()) ? [] : [relayNode()]),
        ...extraReadOnly,
      ];
      return {
        readOnly,
        writable: ["the process's private home"],
        hostProcesses: "hidden",
        network: { namespace: "own", reachable: networkOptions.allow.map(formatTarget) },
      };
    },
  };
}
