import "server-only";
/**
 * Watches a live codex process's sandbox for the limits the kernel only refuses at, without ending
 * anything: with rlimits a fork or thread past `LWC_AGENT_MAX_PROCESSES` fails (so does one past a
 * cgroup's pids.max), an allocation past RLIMIT_DATA fails, and a write past the home's tmpfs
 * (`LWC_AGENT_HOME_MB`) fails with ENOSPC, and codex goes on. Every `intervalMs` it reads from /proc
 * what the kernel counts (the threads of every process in the sandbox, the home's
 * use, each process's room under RLIMIT_DATA) and, once one is at its cap, says which, once; the live session ends itself then.
 */
import { readdirSync, readFileSync, readlinkSync, statfsSync } from "node:fs";
import { MIB, type AgentLimits, type ExceededLimit } from "./limits";

/** A limit the watch ends a live session for. */
type WatchedLimit = Extract<ExceededLimit, "memory" | "processes" | "home">;

/** What the sandbox uses now, as the kernel counts it. */
export interface SandboxUsage {
  /** Tasks (processes and threads) of every process in the sandbox. */
  tasks: number;
  /**
   * The smallest room left under RLIMIT_DATA (its soft limit minus VmData, which is what it caps)
   * among the processes that have one, in bytes; undefined when none has (a cgroup holds memory:
   * going over it gets the process killed, which ends the session already).
   */
  dataHeadroomBytes: number | undefined;
  /** Bytes in use in its home's tmpfs; undefined when it has none of its own (unsandboxed). */
  homeUsedBytes: number | undefined;
}

/** Every interval: often enough that a stuck fork loop or a full home ends the session within seconds. */
const WATCH_INTERVAL_MS = 1_000;
/**
 * A refused allocation leaves VmData below RLIMIT_DATA by the size it asked for; within this of it
 * the process is at its limit. codex 0.171.0 holds 130-240 MB of data, far from the 512 MB default.
 */
export const DATA_MARGIN_BYTES = 16 * MIB;
/** tmpfs refuses the write that would pass its size, so a full home is at most one page short of it. */
const PAGE_BYTES = 4096;

/** The limit `usage` has reached, if any (processes first: a fork loop is the most urgent). */
export function limitReached(usage: SandboxUsage, limits: AgentLimits): WatchedLimit | undefined {
  if (usage.tasks >= limits.maxProcesses) return "processes";
  if (usage.homeUsedBytes !== undefined && usage.homeUsedBytes >= limits.homeMb * MIB - PAGE_BYTES) return "home";
  if (usage.dataHeadroomBytes !== undefined && usage.dataHeadroomBytes <= DATA_MARGIN_BYTES) return "memory";
  return undefined;
}

/** Fields of /proc/<pid>/status, in the units it gives (kB for sizes); undefined once the process is gone. */
function statusFields(pid: number): Map<string, number> | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return undefined;
  }
  const fields = new Map<string, number>();
  for (const match of text.matchAll(/^(\w+):\s+(\d+)/gm)) fields.set(match[1]!, Number(match[2]));
  return fields;
}

/** The soft RLIMIT_DATA of a process from /proc/<pid>/limits, in bytes; undefined when unlimited or gone. */
function dataLimitBytes(pid: number): number | undefined {
  try {
    const soft = /^Max data size\s+(\S+)/m.exec(readFileSync(`/proc/${pid}/limits`, "utf8"))?.[1];
    return soft === undefined || soft === "unlimited" ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/** `root` and every process started under it, from each process's parent in /proc/<pid>/stat. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // Gone while we looked.
    }
    // "pid (comm) state ppid …": comm may hold spaces, so count from the last ")".
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const tree = [root];
  for (let index = 0; index < tree.length; index += 1) tree.push(...(children.get(tree[index]!) ?? []));
  return tree;
}

function mountNamespace(pid: number | "self"): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/mnt`);
  } catch {
    return undefined;
  }
}

/**
 * Bytes in use in `homeDir` as a process of the sandbox sees it (its tmpfs is mounted there in the
 * sandbox's own mount namespace); undefined when no process of the tree has a mount namespace of
 * its own (unsandboxed: the home is a folder on the host's disk).
 */
function homeUsedBytes(tree: number[], homeDir: string): number | undefined {
  const own = mountNamespace("self");
  for (const pid of tree) {
    const namespace = mountNamespace(pid);
    if (namespace === undefined || namespace === own) continue;
    try {
      const stats = statfsSync(`/proc/${pid}/root${homeDir}`, { bigint: false });
      return (stats.blocks - stats.bfree) * stats.bsize;
    } catch {
      // Gone while we looked: try the next one.
    }
  }
  return undefined;
}

/** What the sandbox whose outermost process is `root` uses now. */
export function readSandboxUsage(root: number, homeDir: string): SandboxUsage {
  const tree = processTree(root);
  let tasks = 0;
  let dataHeadroomBytes: number | undefined;
  for (const pid of tree) {
    const fields = statusFields(pid);
    if (!fields) continue;
    tasks += fields.get("Threads") ?? 0;
    const limit = dataLimitBytes(pid);
    if (limit === undefined) continue;
    const headroom = limit - (fields.get("VmData") ?? 0) * 1024;
    dataHeadroomBytes = Math.min(dataHeadroomBytes ?? headroom, headroom);
  }
  return { tasks, dataHeadroomBytes, homeUsedBytes: homeUsedBytes(tree, homeDir) };
}

/**
 * Reads the sandbox of `root` every `intervalMs` and calls `onReached` once, with the first limit
 * it reaches. Returns the stop (idempotent): no timer is left once the session closes.
 */
export function watchLimits(options: {
  root: number;
  homeDir: string;
  limits: AgentLimits;
  onReached: (limit: WatchedLimit) => void;
  intervalMs?: number;
  read?: (root: number, homeDir: string) => SandboxUsage;
}): () => void {
  const read = options.read ?? readSandboxUsage;
  const timer = setInterval(() => {
    const reached = limitReached(read(options.root, options.homeDir), options.limits);
    if (reached === undefined) return;
    clearInterval(timer);
    options.onReached(reached);
  }, options.intervalMs ?? WATCH_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
