import "server-only";
/**
 * Puts a running codex process, and everything in its process group, under its limits with what
 * the host offers:
 *
 * - **cgroup**: where the server may give each process a cgroup v2 group of its own (agentGroupParent:
 *   a subtree delegated to the server, or the root group): memory.max (with memory.swap.max 0) and
 *   pids.max;
 * - **rlimit** otherwise: RLIMIT_DATA for memory and RLIMIT_NPROC for processes, set with
 *   util-linux's prlimit (Debian, Ubuntu and Fedora install it; bwrap cannot set rlimits).
 *
 * CPU time is RLIMIT_CPU either way (a cgroup has no total), so prlimit is needed in both. Limits
 * are applied once the process answered `initialize`, before anyone's words reach it: the codex
 * launcher is node, which reserves more data memory at start than the cap allows, and then execs
 * the native binary, which runs under them. RLIMIT_NPROC counts every task of a user, so it is set
 * only on processes in a user namespace of their own (bwrap makes one when the server is not root):
 * there it counts the sandbox's own tasks.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
import { findExecutable } from "./command-files";
import { MIB, prlimitArgs, type AgentLimits, type LimitMechanism } from "./limits";

const run = promisify(execFile);
/** Rounds of "limit what is new in the group" before giving up on a group that keeps starting processes. */
const MAX_SCANS = 10;

type LimiterStatus = { available: true; mechanism: LimitMechanism } | { available: false; reason: string; fix: string };

export interface AppliedLimits {
  /** Processes of the group the kernel killed for memory (cgroup only; 0 with rlimits). */
  oomKills(): number;
  /** Removes what was made for the process (its cgroup group) once it has exited. */
  release(): void;
}

export interface ProcessLimiter {
  /** How limits hold here; probed once, then cached. */
  status(): Promise<LimiterStatus>;
  /** Limits every process of the process group `pgid` now. Throws when it cannot: the process must not be used. */
  apply(pgid: number, limits: AgentLimits): Promise<AppliedLimits>;
}

const PRLIMIT_FIX =
  "Install util-linux, which has prlimit (Debian/Ubuntu: apt-get install util-linux; Alpine: apk add util-linux-misc): " +
  "it sets each codex process's CPU time limit, and its memory and process limits where no cgroup v2 group can hold them " +
  "(docs/agent-voice.md#limits).";

/** The group's cgroup v2 path from /proc/self/cgroup (`0::/path`), or undefined on a v1-only host. */
export function cgroupV2Path(procSelfCgroup: string): string | undefined {
  const line = procSelfCgroup.split("\n").find((entry) => entry.startsWith("0::"));
  return line ? line.slice(3) : undefined;
}

/** Where the cgroup v2 hierarchy is mounted, from /proc/self/mountinfo; only a mount of its root. */
export function cgroupV2Mount(mountinfo: string): string | undefined {
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!left || !right || right.split(" ")[0] !== "cgroup2") continue;
    const fields = left.split(" ");
    if (fields[3] === "/" && fields[4]) return fields[4].replace(/\\040/g, " ");
  }
  return undefined;
}

function readText(path: string): string {
  try {
    return readFileSync(/* turbopackIgnore: true */ path, "utf8");
  } catch {
    return "";
  }
}

/**
 * Where the codex processes' groups may go, from the server's own group (`ownPath`) and the names
 * of the groups beside it: the root group itself (the only one that may hold processes and groups
 * at once), else the parent of the server's group when it holds nothing but that group (and ours): a
 * subtree delegated to the server, which was started in a leaf of it (systemd's `Delegate=yes` with
 * `DelegateSubgroup=`). Never a group shared with anything else (a systemd slice of other services).
 */
export function agentGroupParent(ownPath: string, siblings: string[]): string | undefined {
  if (ownPath === "/") return "/";
  const own = basename(ownPath);
  const others = siblings.filter((name) => name !== own && !name.startsWith("lwc-agent-"));
  return others.length === 0 ? dirname(ownPath) : undefined;
}

function childGroups(dir: string): string[] {
  try {
    return readdirSync(/* turbopackIgnore: true */ dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/**
 * The cgroup v2 folder to make each codex process's group in, when there is one whose children
 * already get the memory and pids controllers (nothing here changes a group's controllers) and a
 * group made in it has memory.max and pids.max.
 */
function usableCgroup(): string | undefined {
  const path = cgroupV2Path(readText("/proc/self/cgroup"));
  const mount = cgroupV2Mount(readText("/proc/self/mountinfo"));
  if (path === undefined || mount === undefined) return undefined;
  const parentPath = agentGroupParent(path, path === "/" ? [] : childGroups(join(mount, dirname(path))));
  if (parentPath === undefined) return undefined;
  const dir = join(mount, parentPath);
  const enabled = readText(join(dir, "cgroup.subtree_control")).split(/\s+/);
  if (!enabled.includes("memory") || !enabled.includes("pids")) return undefined;
  const probe = join(dir, `lwc-agent-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    const ready = existsSync(join(probe, "memory.max")) && existsSync(join(probe, "pids.max"));
    rmdirSync(probe);
    return ready ? dir : undefined;
  } catch {
    if (existsSync(probe)) rmdirSync(probe);
    return undefined;
  }
}

/** A process's state and group, from /proc/<pid>/stat; undefined once it is gone. */
function processInfo(pid: number | string): { state: string; pgrp: number } | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === "") return undefined;
  // "pid (comm) state ppid pgrp …": comm may hold spaces, so count from the last ")".
  const [state = "", , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state, pgrp: Number(pgrp) };
}

/** Neither gone nor a zombie (a zombie runs nothing, and cannot be limited or moved). */
function isRunning(pid: number): boolean {
  const info = processInfo(pid);
  return info !== undefined && info.state !== "Z";
}

/** Running pids of the process group `pgid`, oldest first (a parent is limited before what it starts). */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const info = processInfo(entry);
    if (info?.pgrp === pgid && info.state !== "Z") members.push(Number(entry));
  }
  return members.sort((a, b) => a - b);
}

function ownUserNamespace(pid: number | "self"): string {
  try {
    return readlinkSync(`/proc/${pid}/ns/user`);
  } catch {
    return "";
  }
}

export function createLocalLimiter(options: { prlimitPath?: string } = {}): ProcessLimiter {
  let checked: Promise<LimiterStatus> | undefined;
  let prlimit: string | undefined;
  let cgroupDir: string | undefined;

  async function probe(): Promise<LimiterStatus> {
    const found = findExecutable(options.prlimitPath ?? "prlimit", process.env.PATH ?? "/usr/bin:/bin");
    if (!found) return { available: false, reason: `prlimit was not found (${options.prlimitPath ?? "prlimit on PATH"})`, fix: PRLIMIT_FIX };
    try {
      // Reads this process's CPU limit: the same system call that will set a codex process's.
      await run(found, ["--pid", String(process.pid), "--cpu"]);
    } catch (error) {
      return { available: false, reason: `prlimit cannot read limits here (${(error as Error).message.slice(0, 200)})`, fix: PRLIMIT_FIX };
    }
    prlimit = found;
    cgroupDir = usableCgroup();
    return { available: true, mechanism: cgroupDir ? "cgroup" : "rlimit" };
  }

  async function limitWithPrlimit(pids: number[], limits: AgentLimits): Promise<void> {
    const serverNamespace = ownUserNamespace("self");
    for (const pid of pids) {
      const processes = !cgroupDir && ownUserNamespace(pid) !== serverNamespace;
      try {
        await run(prlimit!, prlimitArgs(pid, limits, { memory: !cgroupDir, processes }));
      } catch (error) {
        if (isRunning(pid)) throw new Error(`prlimit could not limit process ${pid}: ${(error as Error).message.slice(0, 200)}`);
        // It ended meanwhile (a short-lived helper): nothing to limit.
      }
    }
  }

  function joinGroup(group: string, pids: number[]): void {
    for (const pid of pids) {
      try {
        writeFileSync(join(group, "cgroup.procs"), String(pid));
      } catch (error) {
        if (isRunning(pid)) throw error;
      }
    }
  }

  function makeGroup(pids: number[], limits: AgentLimits): string {
    const group = join(cgroupDir!, `lwc-agent-${randomBytes(6).toString("hex")}`);
    mkdirSync(group);
    try {
      writeFileSync(join(group, "memory.max"), String(limits.memoryMb * MIB));
      if (existsSync(join(group, "memory.swap.max"))) writeFileSync(join(group, "memory.swap.max"), "0");
      writeFileSync(join(group, "pids.max"), String(limits.maxProcesses));
      joinGroup(group, pids);
      return group;
    } catch (error) {
      releaseGroup(group);
      throw error;
    }
  }

  function releaseGroup(group: string): void {
    try {
      rmdirSync(group);
    } catch {
      // Still busy (a process not yet reaped) or gone: an empty group costs nothing and goes with the server's.
    }
  }

  return {
    status() {
      checked ??= probe();
      return checked;
    },
    async apply(pgid, limits) {
      const status = await this.status();
      if (!status.available) throw new Error(`the process limits cannot be applied: ${status.reason}`);
      const first = groupMembers(pgid);
      if (first.length === 0) throw new Error("the process ended before its limits were applied");
      const group = cgroupDir ? makeGroup(first, limits) : undefined;
      try {
        await limitWithPrlimit(first, limits);
        // A process started before its parent was limited does not inherit the limits: scan again
        // until a scan finds nothing new (what starts after its parent was limited inherits them).
        const done = new Set(first);
        for (let round = 0; ; round += 1) {
          const late = groupMembers(pgid).filter((pid) => !done.has(pid));
          if (late.length === 0) break;
          // Fail closed: a process that keeps starting others while it is being limited is not used.
          if (round === MAX_SCANS) throw new Error("the process kept starting processes while its limits were applied");
          if (group) joinGroup(group, late);
          await limitWithPrlimit(late, limits);
          for (const pid of late) done.add(pid);
        }
      } catch (error) {
        if (group) releaseGroup(group);
        throw error;
      }
      return {
        oomKills: () => (group ? Number(/^oom_kill (\d+)/m.exec(readText(join(group, "memory.events")))?.[1] ?? 0) : 0),
        release: () => {
          if (group) releaseGroup(group);
        },
      };
    },
  };
}
