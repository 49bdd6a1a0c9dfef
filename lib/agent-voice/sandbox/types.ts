import "server-only";
/**
 * The one interface between agent voice and whatever isolates a codex process from the server
 * (docs/agent-voice.md#the-sandbox-interface). A backend gets what codex needs and nothing more: the
 * command, its arguments, its config.toml and its limits. `start()` hands back a handle the server
 * can store (plain JSON, no secret), a message channel to codex (JSON-RPC lines, not a child's
 * pipes), a way to put it under its limits, and its teardown. Nothing above this interface knows
 * which backend runs. Types only: lib/server imports them without loading anything Node-specific.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import type { AgentLimits, ExceededLimit, LimitMechanism } from "./limits";

/**
 * `LWC_AGENT_SANDBOX`: `bwrap` (default), `vercel` (a Vercel Sandbox microVM per session) or `off`
 * (unsandboxed: see docs/agent-voice.md#the-sandbox).
 */
export const AGENT_SANDBOX_NAMES = ["bwrap", "vercel", "off"] as const;
export type AgentSandboxName = (typeof AGENT_SANDBOX_NAMES)[number];

/** `LWC_AGENT_SANDBOX=vercel`'s settings (sandbox/vercel/backend.ts). */
export interface VercelSandboxSettings {
  /** LWC_VERCEL_SANDBOX_API_URL. */
  apiUrl: string;
  /** LWC_VERCEL_SANDBOX_SNAPSHOT. */
  snapshotId: string | undefined;
  /** LWC_VERCEL_SANDBOX_VCPUS. */
  vcpus: number;
  /** LWC_VERCEL_SANDBOX_TIMEOUT_SECONDS × 1000. */
  timeoutMs: number;
}

export interface SandboxStartRequest {
  /** The executable (a path; a bare name is looked up on the server's PATH). Local backends only: a VM runs its snapshot's codex. */
  command: string;
  args: string[];
  /** codex's config.toml, written into its private home (mode 0600). */
  configToml?: string;
  /** Its limits (memory, processes, CPU time, the size of its home). */
  limits: AgentLimits;
}

/**
 * Where a started codex runs, as plain JSON the server can store and read back. Never a secret.
 *
 * - `local` (bwrap, off): the process group's leader on this machine, the server instance that
 *   started it (`instance`, its pid) and the private home. Another instance on the same machine can
 *   see whether that process still runs and end it by pid; it cannot talk to codex (its stdio
 *   belongs to the instance that started it). On another machine it is meaningless.
 * - `vercel-sandbox`: the sandbox's id and the url of the session relay in it (sandbox/vercel/handle.ts).
 */
export type SandboxHandle =
  | { kind: "local"; sandbox: "bwrap" | "off"; instance: number; pid: number; home: string }
  | { kind: "vercel-sandbox"; sandboxId: string; relayUrl: string; relayEpoch: string };

/** How codex ended: its exit, the limit that ended it if one did, and why it did not start if it did not. */
export interface SandboxExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  limit?: ExceededLimit;
  /** Why it never ran (the executable was not found, …): for the log only. */
  startError?: string;
}

/** The message channel to one codex: newline-delimited JSON-RPC, one message per line. */
export interface CodexChannel {
  /** Writes one line (without its newline). Dropped once codex has ended. */
  send(line: string): void;
  /** Where each line codex writes goes. One listener; lines that arrive before it is set wait for it. */
  onLine(listener: (line: string) => void): void;
  /** Resolves once codex has ended, whatever ended it. */
  readonly exited: Promise<SandboxExit>;
  /** The last of codex's stderr, for a start-failure message (never logged whole). */
  stderrTail(): string;
}

export interface StartedSandbox {
  handle: SandboxHandle;
  channel: CodexChannel;
  /** codex's working folder (thread/start's cwd), inside the sandbox's own view. */
  workDir: string;
  /**
   * Puts everything in the sandbox under its limits. Call once codex answered `initialize`, before
   * it serves anyone; throws when it cannot. (A VM's limits hold from its start: a no-op there.)
   */
  applyLimits(): Promise<void>;
  /** Ends codex gently (its input closed, then SIGTERM, then SIGKILL) and removes everything it had. Idempotent. */
  stop(): Promise<void>;
  /** The server's last moment: ends everything at once, synchronously where it can (a VM's stop is sent, not awaited). */
  stopNow(): void;
  /**
   * Only where codex can outlive this server instance (a VM): stops following codex without ending
   * it, and gives what another instance needs to `reopen` it (a secret: keep it sealed) and the
   * last line this one heard.
   */
  handOff?(): { secret: string; cursor: number };
}

export type SandboxStatus =
  /** `limits`: how the memory and process caps hold here (a cgroup v2 group, rlimits, or the VM itself). */
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
   * The network: the host's (unsandboxed), a namespace of its own whose only way out is the
   * server's egress proxy to the `host:port`s in `reachable`, or a VM's network policy.
   */
  network: { namespace: "host" } | { namespace: "own"; reachable: string[] };
}

export interface AgentSandbox {
  readonly name: AgentSandboxName;
  /** Whether one started, idle codex is worth keeping ready (a local process: yes; a billed VM: no). */
  readonly warmSpare: boolean;
  /**
   * Whether codex can start in it: for bwrap a real start of a tiny program and the limits probe
   * (once, then cached), and that nothing it would show holds the app's folder or an env file the
   * app read (each call); for a VM backend, that it is configured.
   */
  status(command: string): Promise<SandboxStatus>;
  /** Starts codex inside. Call only after `status()` said it is available. */
  start(request: SandboxStartRequest): Promise<StartedSandbox>;
  /** Where codex can outlive an instance: follows a codex another instance handed off, from the line after `cursor`. */
  reopen?(handle: SandboxHandle, secret: string, cursor: number): Promise<StartedSandbox>;
  /** What a process started for `command` can see and write. */
  limits(command: string, env: Record<string, string>): SandboxLimits;
}

// ---- The local backends (bwrap, off): a child process of this server ----

export interface SandboxSpawnRequest {
  command: string;
  args: string[];
  /** The process's private folder: its HOME and the only place it may write. Must exist. */
  homeDir: string;
  /** The process's whole environment (nothing of the server's is added). */
  env: Record<string, string>;
  /** Its working folder, inside `homeDir`. */
  cwd: string;
  limits: AgentLimits;
}

export interface SandboxedProcess {
  /** stdin/stdout/stderr pipes, `pid`, and the usual `exit` / `error` events. */
  process: ChildProcessWithoutNullStreams;
  /** Asks everything in the sandbox to stop (SIGTERM). */
  terminate(): void;
  /** Ends everything in the sandbox at once (SIGKILL), also what the command started. Idempotent. */
  teardown(): void;
  applyLimits(): Promise<void>;
  /** After the process exited: the limit that ended it, if one did. Frees what the limits used. */
  exceededLimit(exit: { code: number | null; signal: NodeJS.Signals | null }, stderrTail: string): ExceededLimit | undefined;
}

/** A local backend: `start()` plus the raw spawn it is built on (its hardening tests run processes with it). */
export interface LocalSandbox extends AgentSandbox {
  readonly name: "bwrap" | "off";
  spawn(request: SandboxSpawnRequest): SandboxedProcess;
}
