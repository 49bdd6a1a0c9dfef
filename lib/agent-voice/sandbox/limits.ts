import "server-only";
/**
 * The limits every codex process runs under, and the pure pieces of enforcing them: the prlimit
 * arguments, and which limit (if any) ended a process. Where they are enforced (a cgroup v2 group
 * or rlimits) is local-limiter.ts; the home's size is the bwrap sandbox's tmpfs (private-home.ts).
 */

import { DEFAULT_AGENT_CPU_SECONDS, DEFAULT_AGENT_HOME_MB, DEFAULT_AGENT_MAX_PROCESSES, DEFAULT_AGENT_MEMORY_MB } from "../defaults";

/** Per codex process; the defaults are in lib/agent-voice/defaults.ts. */
export interface AgentLimits {
  /** Memory, in MiB (`LWC_AGENT_MEMORY_MB`): cgroup memory.max, or RLIMIT_DATA. */
  memoryMb: number;
  /** Processes and threads, as the kernel counts them (`LWC_AGENT_MAX_PROCESSES`): cgroup pids.max, or RLIMIT_NPROC. */
  maxProcesses: number;
  /** CPU time, in seconds (`LWC_AGENT_CPU_SECONDS`): RLIMIT_CPU (SIGXCPU, then SIGKILL 5 s later). */
  cpuSeconds: number;
  /** What its home may hold, in MiB (`LWC_AGENT_HOME_MB`): the size of its tmpfs. */
  homeMb: number;
}

/** The limits with a default for each one not given. */
export function agentLimits(given: Partial<AgentLimits> = {}): AgentLimits {
  return {
    memoryMb: given.memoryMb ?? DEFAULT_AGENT_MEMORY_MB,
    maxProcesses: given.maxProcesses ?? DEFAULT_AGENT_MAX_PROCESSES,
    cpuSeconds: given.cpuSeconds ?? DEFAULT_AGENT_CPU_SECONDS,
    homeMb: given.homeMb ?? DEFAULT_AGENT_HOME_MB,
  };
}

/** How the memory and process caps hold on this host (/api/health says which). */
/** `vm`: the VM itself (its vCPUs and memory) under LWC_AGENT_SANDBOX=vercel. */
export type LimitMechanism = "cgroup" | "rlimit" | "vm";

/**
 * A limit whose crossing ends the process, hence its live session: memory, CPU and the line cap by
 * how the process ended; memory, processes and the home also by the watch of a live one (limit-watch.ts).
 */
export type ExceededLimit = "memory" | "cpu" | "message" | "processes" | "home";

/** One JSON-RPC line from codex may be at most this long; a longer one ends the process (json-rpc.ts). */
export const MAX_RPC_LINE_BYTES = 1024 * 1024;

export const MIB = 1024 * 1024;
/** After the CPU soft limit's SIGXCPU, a process that ignores it is killed this much later. */
const CPU_KILL_AFTER_SECONDS = 5;
/** bwrap exits with 128 + the signal that ended its command. */
const SIGNAL_EXIT_BASE = 128;
const SIGXCPU = 24;
const SIGABRT = 6;

/**
 * `prlimit --pid <pid> …` for one process: CPU time, no core file (a core of codex would hold the
 * person's token), and with rlimits the memory cap (RLIMIT_DATA: the heap and every private
 * writable mapping, which is what a runaway read grows) and, where the process counts only its own
 * tasks, the process cap.
 */
export function prlimitArgs(pid: number, limits: AgentLimits, options: { memory: boolean; processes: boolean }): string[] {
  const args = ["--pid", String(pid), `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + CPU_KILL_AFTER_SECONDS}`, "--core=0:0"];
  if (options.memory) {
    const bytes = limits.memoryMb * MIB;
    args.push(`--data=${bytes}:${bytes}`);
  }
  if (options.processes) args.push(`--nproc=${limits.maxProcesses}:${limits.maxProcesses}`);
  return args;
}

/**
 * The limit that ended a process, from how it ended: the cgroup's OOM kills; SIGXCPU (directly,
 * or as bwrap's exit code 152); an abort after Rust's "memory allocation of N bytes failed" (an
 * allocation over RLIMIT_DATA that codex could not recover from).
 */
export function exceededLimit(exit: { code: number | null; signal: NodeJS.Signals | null }, stderrTail: string, oomKills: number): ExceededLimit | undefined {
  if (oomKills > 0) return "memory";
  if (exit.signal === "SIGXCPU" || exit.code === SIGNAL_EXIT_BASE + SIGXCPU) return "cpu";
  const aborted = exit.signal === "SIGABRT" || exit.code === SIGNAL_EXIT_BASE + SIGABRT;
  if (aborted && /memory allocation of \d+ bytes failed/.test(stderrTail)) return "memory";
  return undefined;
}
