import "server-only";
/**
 * The one interface between agent voice and whatever isolates a codex process from the server.
 * A backend (bubblewrap today, a microVM later) gets what the process needs and nothing more:
 * the command, its arguments, its private home (the one place it may write), its whole
 * environment and its working folder. It hands back a process handle and a way to end it.
 * Types only: lib/server imports them without loading anything Node-specific.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import type { AgentLimits, ExceededLimit, LimitMechanism } from "./limits";

/** `LWC_AGENT_SANDBOX`: `bwrap` (default) or `off` (unsandboxed: see docs/agent-voice.md#the-sandbox). */
export const AGENT_SANDBOX_NAMES = ["bwrap", "off"] as const;
export type AgentSandboxName = (typeof AGENT_SANDBOX_NAMES)[number];

export interface SandboxSpawnRequest {
  /** The executable (a path; a bare name is looked up on `env.PATH`). */
  command: string;
  args: string[];
  /** The process's private folder: its HOME and the only place it may write. Must exist. */
  homeDir: string;
  /** The process's whole environment (nothing of the server's is added). */
  env: Record<string, string>;
  /** Its working folder, inside `homeDir`. */
  cwd: string;
  /** Its limits (memory, processes, CPU time, the size of its home). */
  limits: AgentLimits;
}

export interface SandboxedProcess {
  /** stdin/stdout/stderr pipes, `pid`, and the usual `exit` / `error` events. */
  process: ChildProcessWithoutNullStreams;
  /** Asks everything in the sandbox to stop (SIGTERM). */
  terminate(): void;
  /** Ends everything in the sandbox at once (SIGKILL), also what the command started. Idempotent. */
  teardown(): void;
  /**
   * Puts everything in the sandbox under `limits` (memory, processes, CPU time). Call once the
   * process answered `initialize`, before it serves anyone; throws when it cannot.
   */
  applyLimits(): Promise<void>;
  /** After the process exited: the limit that ended it, if one did. Frees what the limits used. */
  exceededLimit(exit: { code: number | null; signal: NodeJS.Signals | null }, stderrTail: string): ExceededLimit | undefined;
}

export type SandboxStatus =
  /** `limits`: how the memory and process caps hold here (a cgroup v2 group, or rlimits). */
  | { available: true; limits: LimitMechanism }
  /** `reason`: what failed (for the log); `fix`: what an operator can do about it. */
  | { available: false; reason: string; fix: string };

/** What a process inside can reach: for the log, the health answer and the docs. */
export interface SandboxLimits {
  /** Host paths visible read-only (system folders, the command's own folder, the extra paths). */
  readOnly: string[];
  /** Host paths it may write: only its private home. */
  writable: string[];
  /** Other processes of the host visible to it. */
  hostProcesses: "hidden" | "visible";
  /**
   * The network: the host's (unsandboxed), or a namespace of its own whose only way out is the
   * server's egress proxy to the `host:port`s in `reachable`.
   */
  network: { namespace: "host" } | { namespace: "own"; reachable: string[] };
}

export interface AgentSandbox {
  readonly name: AgentSandboxName;
  /**
   * Whether a process for `command` can start in it: a real start of a tiny program and the limits
   * probe (once, then cached), and for bwrap that nothing it would show holds the app's folder or
   * an env file the app read (each call).
   */
  status(command: string): Promise<SandboxStatus>;
  /** Starts `request` inside. Call only after `status()` said it is available. */
  spawn(request: SandboxSpawnRequest): SandboxedProcess;
  /** What a process started for `command` can see and write. */
  limits(command: string, env: Record<string, string>): SandboxLimits;
}
