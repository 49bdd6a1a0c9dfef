import "server-only";
/**
 * Agent voice's defaults, each written once: lib/agent-voice/live-sessions.ts applies them to
 * `AgentVoiceOptions`, and lib/env-options.ts derives the `LWC_AGENT_VOICE_*` defaults from
 * them. A module of its own so the environment schema does not load agent voice itself.
 */
export const DEFAULT_START_TIMEOUT_MS = 20_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_MAX_DURATION_MS = 60 * 60_000;
export const DEFAULT_KEEPALIVE_INTERVAL_MS = 15_000;
export const DEFAULT_EVENT_BUFFER_SIZE = 256;
export const DEFAULT_LOGIN_CHECK_INTERVAL_MS = 30_000;
export const DEFAULT_MAX_SESSIONS = 8;
export const DEFAULT_MAX_SESSIONS_PER_ACCOUNT = 2;
/** `retry-after` of a busy answer that has no better one: live sessions last minutes, so a little patience. */
export const BUSY_RETRY_AFTER_SECONDS = 30;
/** The Vercel Sandbox API `@vercel/sandbox` talks to (its base URL, fixed in the SDK). */
export const DEFAULT_VERCEL_SANDBOX_API_URL = "https://vercel.com/api";
/** A Vercel Sandbox's vCPUs (2048 MB of memory each): codex and the relay are mostly idle, waiting on the network. */
export const DEFAULT_VERCEL_SANDBOX_VCPUS = 1;
/** A Vercel Sandbox's lifetime: a live session's longest, plus five minutes to end it cleanly. */
export const DEFAULT_VERCEL_SANDBOX_TIMEOUT_MS = DEFAULT_MAX_DURATION_MS + 5 * 60_000;
/** Each codex process's limits (lib/agent-voice/sandbox/limits.ts; docs/agent-voice.md#limits). */
export const DEFAULT_AGENT_MEMORY_MB = 512;
export const DEFAULT_AGENT_MAX_PROCESSES = 128;
export const DEFAULT_AGENT_CPU_SECONDS = 300;
export const DEFAULT_AGENT_HOME_MB = 64;
