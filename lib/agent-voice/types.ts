import "server-only";
/**
 * Public types of the agent-voice (app-server) feature. Types only: lib/server imports them
 * without pulling in anything Node-specific.
 */
import type { KeyValueStore } from "@/lib/stores/types";
import type { AgentLimits } from "./sandbox/limits";
import type { AgentSandbox, AgentSandboxName, VercelSandboxSettings } from "./sandbox/types";

/** The signed-in account a tool runs for. */
export interface ToolAccount {
  accountId: string;
  email: string;
  plan: string;
}

export interface ToolContext {
  account: ToolAccount;
  /** The handler's session store (memory or Upstash): where a tool keeps the account's data. */
  store: KeyValueStore;
  now: () => number;
}

/** What a tool hands back to Codex: text, or a JSON value (sent as its JSON text). */
export type ToolOutput = string | Record<string, unknown> | unknown[];

/**
 * One tool the live session may call (a Codex "dynamic tool"). Only tools in
 * `realtime.agentVoice.tools` are ever shown to the agent.
 */
export interface RealtimeTool {
  /** `[a-zA-Z0-9_-]{1,64}`. */
  name: string;
  description: string;
  /** JSON Schema of the arguments, shown to the model. */
  inputSchema: Record<string, unknown>;
  /** When true the call waits for POST …/confirm; `run` happens only through `confirmTool`. */
  needsConfirmation?: boolean;
  /**
   * The safe review payload of a call waiting for confirmation: what the person is shown. Never put
   * credentials or anything private to the server in it. Throw to refuse malformed arguments.
   */
  review?(args: unknown): Record<string, unknown>;
  /** Does the work. Throw to fail the call (the agent is told only that it failed). */
  run(args: unknown, ctx: ToolContext): Promise<ToolOutput>;
}

/** A tool call waiting for the person's decision, as the server keeps it. */
export interface PendingToolCall {
  callId: string;
  tool: string;
  arguments: unknown;
  review: Record<string, unknown>;
  /** Who started the live session: the login (cookie session) and its account. */
  owner: { loginId: string; accountId: string };
  createdAt: number;
}

interface ConfirmToolInput {
  callId: string;
  /** The request's `confirmation` object (here always `{approved: true}`: a denial never calls the handler). */
  confirmation: { approved: boolean };
  /** The account that sent the confirm request. */
  account: ToolAccount & { loginId: string };
  /** Re-reads the pending call from the server's own records (never from the request). Null once it is gone. */
  readPendingCall(): PendingToolCall | null;
  store: KeyValueStore;
  now: () => number;
}

/**
 * Performs a confirmed tool action: re-read the pending call, check that it belongs to the account
 * confirming it, do the work, return what Codex should be told. Throw to fail (the call stays
 * pending so the person can retry).
 */
export type ConfirmTool = (input: ConfirmToolInput) => Promise<ToolOutput>;

export interface AgentVoiceOptions {
  /** The codex executable (`LWC_CODEX_COMMAND`); it is run as `<command> app-server`. */
  command: string;
  /** The only tools the agent gets. Default none. */
  tools?: RealtimeTool[];
  /** Text of `config.toml` written into each process's private CODEX_HOME. Default none. */
  configToml?: string;
  // The defaults of these limits are in lib/agent-voice/defaults.ts.
  /** Spawn → answer SDP must finish within this many ms. */
  startTimeoutMs?: number;
  /** A live session with no event and no request for this many ms is closed. */
  idleTimeoutMs?: number;
  /** A live session is closed this many ms after its start, whatever happens. */
  maxDurationMs?: number;
  /** Spacing of `keepalive` lines on an event stream, in ms. */
  keepaliveIntervalMs?: number;
  /** Events kept per live session for late subscribers and `?after=` resumes. */
  eventBufferSize?: number;
  /** Keep one initialised (not signed-in) process ready after the first start. Default true. */
  keepWarmProcess?: boolean;
  /**
   * Live sessions one ChatGPT account may hold at once, across all its sign-ins
   * (`LWC_AGENT_VOICE_MAX_SESSIONS_PER_ACCOUNT`); more answer 429 `realtime_busy`.
   */
  maxSessionsPerAccount?: number;
  /** Live sessions of the deployment, every instance sharing the store (`LWC_AGENT_VOICE_MAX_SESSIONS`); more answer 503 `realtime_busy`. */
  maxSessions?: number;
  /** How often a live session checks its login is still signed in, in ms. */
  loginCheckIntervalMs?: number;
  /** Developer instructions for the agent's thread. Default: a short built-in text. */
  instructions?: string;
  /**
   * The sandbox every codex process runs in (`LWC_AGENT_SANDBOX`): `"bwrap"` (default,
   * bubblewrap; agent voice answers 503 `agent_sandbox_unavailable` when it cannot start),
   * `"vercel"` (a Vercel Sandbox microVM per live session: `vercelSandbox`), `"off"`
   * (unsandboxed: the process can read whatever the server's user can), or a ready AgentSandbox.
   */
  sandbox?: AgentSandboxName | AgentSandbox;
  /**
   * With `sandbox: "vercel"`: the Vercel Sandbox API's address (`LWC_VERCEL_SANDBOX_API_URL`), the
   * snapshot (`LWC_VERCEL_SANDBOX_SNAPSHOT`), each VM's vCPUs and lifetime. Credentials come from the
   * environment (VERCEL_TOKEN + VERCEL_TEAM_ID + VERCEL_PROJECT_ID, or Vercel's OIDC token).
   */
  vercelSandbox?: VercelSandboxSettings;
  /** Host paths the sandbox also shows read-only (`LWC_AGENT_SANDBOX_READONLY_PATHS`). Default none. */
  sandboxReadOnlyPaths?: string[];
  /**
   * Hosts a sandboxed codex process may reach besides the upstream's (`LWC_AGENT_SANDBOX_ALLOW_HOSTS`):
   * URLs or `host:port`. The upstream's hosts (`LWC_CODEX_BASE_URL`, `LWC_ISSUER_URL` and the bases
   * codex derives from them) are always on the list. Default none. (Once the handler resolved its
   * options, this holds the whole list.)
   */
  sandboxAllowHosts?: string[];
  /**
   * Each codex process's limits (`LWC_AGENT_MEMORY_MB`, `LWC_AGENT_MAX_PROCESSES`,
   * `LWC_AGENT_CPU_SECONDS`, `LWC_AGENT_HOME_MB`); each one left out gets its default
   * (lib/agent-voice/defaults.ts). Going over memory or CPU time ends the live session.
   */
  limits?: Partial<AgentLimits>;
}
