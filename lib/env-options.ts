import "server-only";
/**
 * The app's environment: the zod schema of every variable it reads, and the handler options built
 * from it. No side effects, so `npm run doctor` (lib/doctor) checks a deploy with the same rules the
 * server starts with; lib/provider-app.ts builds the app's one handler from it.
 */
import { z } from "zod";
import { normalizeApiBasePath, normalizeAppBasePath } from "@/lib/shared/base-path";
import { createStoreFromEnv, STORE_ENV_VARIABLES } from "@/lib/stores";
import { connectionPeerAddress } from "@/lib/server/http/connection-peer";
import { randomId } from "@/lib/server/http/encoding";
import { LOG_PREFIX } from "@/lib/logger";
import { onePerProcess } from "@/lib/one-per-process";
import { refuseBrokenDeployOnVercel, siwcOnHostingPlatform } from "@/lib/deploy-checks";
import {
  DEFAULT_LOGIN_GLOBAL_RATE_LIMIT,
  DEFAULT_LOGIN_RATE_LIMIT,
  DEFAULT_MAX_REQUEST_BYTES,
  DEFAULT_MAX_STREAM_MS,
  DEFAULT_RESPONSES_RATE_LIMIT,
  DEFAULT_SESSION_TTL_MS,
  type ProviderHandlerOptions,
  type RateLimitOption,
} from "@/lib/server/options";
import { DEFAULT_TRUSTED_PROXY_HOPS } from "@/lib/server/http/client-address";
import {
  DEFAULT_SIWC_AGENT_NAME,
  DEFAULT_SIWC_API_BASE,
  DEFAULT_SIWC_ISSUER,
  isValidAgentName,
  isValidHostId,
  normalizeSiwcUrl,
  parseSignInMethods,
} from "@/lib/server/siwc/config";
import { DEFAULT_REALTIME_MAX_REQUEST_BYTES, DEFAULT_REALTIME_RATE_LIMIT } from "@/lib/server/voice/options";
import {
  DEFAULT_AGENT_CPU_SECONDS,
  DEFAULT_AGENT_HOME_MB,
  DEFAULT_AGENT_MAX_PROCESSES,
  DEFAULT_AGENT_MEMORY_MB,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_DURATION_MS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_ACCOUNT,
  DEFAULT_VERCEL_SANDBOX_API_URL,
  DEFAULT_VERCEL_SANDBOX_TIMEOUT_MS,
  DEFAULT_VERCEL_SANDBOX_VCPUS,
} from "@/lib/agent-voice/defaults";
import type { KeyValueStore } from "@/lib/stores/types";
import { parseAllowEntry } from "@/lib/agent-voice/sandbox/egress-allow-list";
import { AGENT_SANDBOX_NAMES } from "@/lib/agent-voice/sandbox/types";
import { referenceConfirmTool, referenceTools } from "@/lib/agent-voice/tools";
import { CODEX_REALTIME_MODEL, REALTIME_TRANSPORTS, VOICE_MODES } from "@/lib/upstream/realtime";
import { INSTRUCTIONS_MODES } from "@/lib/upstream/responses";
import { uncachedFetch } from "@/lib/upstream/uncached-fetch";
import { historySettingFromEnv, isPostgresUrl } from "@/lib/history/config";

function isAllowEntry(entry: string): boolean {
  try {
    parseAllowEntry(entry);
    return true;
  } catch {
    return false;
  }
}
const commaList = z
  .string()
  .optional()
  .transform((value) => (value ?? "").split(",").map((item) => item.trim()).filter((item) => item !== ""));
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value?.trim() ? value.trim() : undefined));
/** The variables' own defaults come from the handler's and agent voice's constants, each written once. */
const positiveInt = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? Number(value.trim()) : fallback))
    .pipe(z.number().int().positive());

/** A Postgres connection URL (the message never repeats it: it may hold a password). */
const postgresUrl = optionalText.refine((value) => value === undefined || isPostgresUrl(value), "must be a postgres:// or postgresql:// URL");

/** An issuer or API base URL (https; http only on loopback), trailing slashes trimmed; `fallback` when unset. */
const secureBaseUrl = (fallback: string) =>
  z.string().optional().transform((value, context) => {
    const normalized = normalizeSiwcUrl(value?.trim() ? value : fallback);
    if (normalized !== null) return normalized;
    context.addIssue({ code: "custom", message: "must be an https URL (http only on 127.0.0.1, localhost or [::1])" });
    return z.NEVER;
  });

/** A rate limit's requests per minute (the variables count per minute; the constants say their window). */
function perMinute(limit: RateLimitOption): number {
  return (limit.limit * 60_000) / limit.windowMs;
}

/** Every variable the app reads (the Upstash ones are read by createStoreFromEnv). */
const envSchema = z.object({
  LWC_SECRET: commaList,
  // The sign-ins offered, normalised to `device`, `siwc` or `device,siwc`.
  LWC_SIGN_IN: z.string().optional().transform((value, context) => {
    const methods = parseSignInMethods(value?.trim() ? value : "device");
    if (methods !== null) return methods.join(",");
    context.addIssue({ code: "custom", message: "must be a comma list of device and siwc" });
    return z.NEVER;
  }),
  LWC_SIWC_ISSUER: secureBaseUrl(DEFAULT_SIWC_ISSUER),
  LWC_SIWC_API_BASE: secureBaseUrl(DEFAULT_SIWC_API_BASE),
  LWC_SIWC_AGENT_NAME: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim() : DEFAULT_SIWC_AGENT_NAME))
    .refine(isValidAgentName, "must be 1-100 characters without control characters"),
  LWC_SIWC_PEER_CHECK: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim().toLowerCase() : "on"))
    .pipe(z.enum(["on", "off"])),
  LWC_SIWC_HOST_ID: optionalText.refine(
    (value) => value === undefined || isValidHostId(value),
    "must be urn:uuid:<UUIDv4>, urn:ietf:params:oauth:jwk-thumbprint:sha-256:<thumbprint> or did:key:<key>",
  ),
  LWC_ISSUER_URL: optionalText,
  LWC_CODEX_BASE_URL: optionalText,
  LWC_VERIFICATION_URL: optionalText,
  LWC_CLIENT_VERSION: optionalText,
  LWC_ALLOWED_MODELS: commaList,
  LWC_ALLOWED_ORIGINS: commaList,
  LWC_SESSION_TTL_SECONDS: positiveInt(DEFAULT_SESSION_TTL_MS / 1000),
  LWC_RESPONSES_PROXY: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim().toLowerCase() : "on"))
    .pipe(z.enum(["on", "off"])),
  LWC_RATE_LIMIT_PER_MINUTE: positiveInt(perMinute(DEFAULT_RESPONSES_RATE_LIMIT)),
  LWC_LOGIN_RATE_LIMIT_PER_MINUTE: positiveInt(perMinute(DEFAULT_LOGIN_RATE_LIMIT)),
  LWC_LOGIN_GLOBAL_RATE_LIMIT_PER_MINUTE: positiveInt(perMinute(DEFAULT_LOGIN_GLOBAL_RATE_LIMIT)),
  LWC_MAX_REQUEST_BYTES: positiveInt(DEFAULT_MAX_REQUEST_BYTES),
  LWC_INSTRUCTIONS: optionalText,
  LWC_WEB_SEARCH: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim().toLowerCase() : "on"))
    .pipe(z.enum(["on", "off"])),
  LWC_INSTRUCTIONS_MODE: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim().toLowerCase() : "default"))
    .pipe(z.enum(INSTRUCTIONS_MODES)),
  LWC_CODEX_COMMAND: optionalText,
  LWC_AGENT_VOICE_IDLE_SECONDS: positiveInt(DEFAULT_IDLE_TIMEOUT_MS / 1000),
  LWC_AGENT_VOICE_MAX_SECONDS: positiveInt(DEFAULT_MAX_DURATION_MS / 1000),
  LWC_AGENT_VOICE_MAX_SESSIONS_PER_ACCOUNT: positiveInt(DEFAULT_MAX_SESSIONS_PER_ACCOUNT),
  LWC_AGENT_VOICE_MAX_SESSIONS: positiveInt(DEFAULT_MAX_SESSIONS),
  LWC_AGENT_SANDBOX: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim().toLowerCase() : "bwrap"))
    .pipe(z.enum(AGENT_SANDBOX_NAMES)),
  LWC_AGENT_SANDBOX_READONLY_PATHS: z
    .string()
    .optional()
    .transform((value) => (value ?? "").split(":").map((item) => item.trim()).filter((item) => item !== ""))
    .pipe(z.array(z.string().startsWith("/", "must be absolute paths, separated by colons"))),
  LWC_AGENT_SANDBOX_ALLOW_HOSTS: commaList.pipe(
    z.array(z.string().refine(isAllowEntry, "must be URLs or host:port pairs (IPv6 as [::1]:443), separated by commas")),
  ),
  // Where @vercel/sandbox sends its API calls (lib/agent-voice/vercel-sandbox-api.ts): Vercel's, or a local fake.
  LWC_VERCEL_SANDBOX_API_URL: secureBaseUrl(DEFAULT_VERCEL_SANDBOX_API_URL),
  // Agent voice's Vercel Sandbox backend (LWC_AGENT_SANDBOX=vercel; lib/agent-voice/sandbox/vercel/):
  // the snapshot `npm run agent-voice:snapshot` made, each sandbox's vCPUs, and its lifetime.
  LWC_VERCEL_SANDBOX_SNAPSHOT: optionalText,
  LWC_VERCEL_SANDBOX_VCPUS: positiveInt(DEFAULT_VERCEL_SANDBOX_VCPUS),
  LWC_VERCEL_SANDBOX_TIMEOUT_SECONDS: positiveInt(DEFAULT_VERCEL_SANDBOX_TIMEOUT_MS / 1000),
  LWC_AGENT_MEMORY_MB: positiveInt(DEFAULT_AGENT_MEMORY_MB),
  LWC_AGENT_MAX_PROCESSES: positiveInt(DEFAULT_AGENT_MAX_PROCESSES),
  LWC_AGENT_CPU_SECONDS: positiveInt(DEFAULT_AGENT_CPU_SECONDS),
  LWC_AGENT_HOME_MB: positiveInt(DEFAULT_AGENT_HOME_MB),
  LWC_REALTIME: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim().toLowerCase() : "on"))
    .pipe(z.enum(["on", "off"])),
  LWC_REALTIME_TRANSPORTS: commaList.pipe(z.array(z.enum(REALTIME_TRANSPORTS))),
  LWC_REALTIME_VOICE_MODES: commaList.pipe(z.array(z.enum(VOICE_MODES))),
  LWC_REALTIME_MAX_REQUEST_BYTES: positiveInt(DEFAULT_REALTIME_MAX_REQUEST_BYTES),
  LWC_REALTIME_RATE_LIMIT_PER_MINUTE: positiveInt(perMinute(DEFAULT_REALTIME_RATE_LIMIT)),
  LWC_ALLOWED_REALTIME_MODELS: commaList,
  LWC_REALTIME_MODEL: optionalText.pipe(z.string().max(128).optional()),
  LWC_CHATGPT_URL: optionalText,
  LWC_TRUSTED_PROXY_HOPS: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? Number(value.trim()) : DEFAULT_TRUSTED_PROXY_HOPS))
    .pipe(z.number().int().min(0).max(20)),
  LWC_MAX_STREAM_SECONDS: positiveInt(DEFAULT_MAX_STREAM_MS / 1000),
  LWC_COOKIE_HOST_PREFIX: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim().toLowerCase() : "0"))
    .pipe(z.enum(["1", "0", "on", "off", "true", "false"]))
    .transform((value) => value === "1" || value === "on" || value === "true"),
  // Read by lib/deploy-checks.ts: `1` means one instance on the in-memory store is intended in production.
  LWC_ALLOW_MEMORY_STORE: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim() : "0"))
    .pipe(z.enum(["0", "1"])),
  // Build-time settings, read by next.config.ts (Next's basePath and build folder); checked here too.
  LWC_BASE_PATH: z
    .string()
    .optional()
    .refine((value) => {
      try {
        normalizeAppBasePath(value);
        return true;
      } catch {
        return false;
      }
    }, "must be a path such as /chat-app"),
  // Where the API answers below LWC_BASE_PATH (default /api/provider); next.config.ts rewrites it onto
  // app/api/provider and inlines it, and lib/provider-app.ts mounts the handler there.
  LWC_API_BASE_PATH: z.string().optional().transform((value, context) => {
    try {
      return normalizeApiBasePath(value);
    } catch {
      context.addIssue({ code: "custom", message: "must be a path under /api/ such as /api/chatgpt" });
      return z.NEVER;
    }
  }),
  LWC_DIST_DIR: optionalText,
  // Chat history (lib/history/config.ts decides where): Postgres, or the embedded database, or browsers only.
  DATABASE_URL: postgresUrl,
  POSTGRES_URL: postgresUrl,
  LWC_DATA_DIR: optionalText,
  LWC_CHAT_HISTORY: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim().toLowerCase() : "server"))
    .pipe(z.enum(["server", "browser"])),
});

/**
 * Every environment variable the app reads: the schema's and the store's. docs/configuration.md and
 * docs/server.md must list exactly these, and .env.example all but the one of the repository's own
 * tooling, LWC_DIST_DIR (lib/env-docs.test.ts checks).
 */
export const ENV_VARIABLES: readonly string[] = [...Object.keys(envSchema.shape), ...STORE_ENV_VARIABLES];

/**
 * The session store. The in-memory one is made once per process (lib/one-per-process.ts):
 * `next dev` evaluates this module again on each save of a server file, and a new store would sign
 * everyone out.
 */
function sessionStoreFromEnv(env: Record<string, string | undefined>): KeyValueStore {
  const store = createStoreFromEnv(env);
  return store.kind === "memory" ? onePerProcess("memory-store", "", () => store) : store;
}

/**
 * `next dev` without LWC_SECRET: one random secret per process, for the same reason (a new one on
 * each save would sign everyone out). Elsewhere none: the handler makes one and warns.
 */
function developmentSecrets(): string[] {
  if (process.env.NODE_ENV !== "development") return [];
  return onePerProcess("development-secret", "", () => {
    console.warn(`${LOG_PREFIX} LWC_SECRET is not set: this development server uses a random secret; sessions end when it stops.`);
    return [randomId(32)];
  });
}

export type ParsedEnv = z.output<typeof envSchema>;

/**
 * Variables renamed when "realtime app-server" became agent voice, old name → new name. The old
 * name is still read when the new one is unset or blank; when both are set the new one wins.
 */
export const RENAMED_ENV_VARIABLES: Readonly<Record<string, string>> = {
  LWC_REALTIME_APP_SERVER_IDLE_SECONDS: "LWC_AGENT_VOICE_IDLE_SECONDS",
  LWC_REALTIME_APP_SERVER_MAX_SECONDS: "LWC_AGENT_VOICE_MAX_SECONDS",
  LWC_REALTIME_APP_SERVER_MAX_SESSIONS_PER_ACCOUNT: "LWC_AGENT_VOICE_MAX_SESSIONS_PER_ACCOUNT",
  LWC_REALTIME_APP_SERVER_MAX_SESSIONS: "LWC_AGENT_VOICE_MAX_SESSIONS",
};

/** The environment with each old name's value under its new name (unless the new one is set), and which came from where. */
function withRenamedVariables(env: Record<string, string | undefined>) {
  const renamed = { ...env };
  const fromOldName = new Map<string, string>();
  for (const [oldName, newName] of Object.entries(RENAMED_ENV_VARIABLES)) {
    if (renamed[newName]?.trim() || !renamed[oldName]?.trim()) continue;
    renamed[newName] = renamed[oldName];
    fromOldName.set(newName, oldName);
  }
  return { renamed, fromOldName };
}

/** Every variable of the schema, validated and with its default; throws naming the bad variable (never its value). */
export function parseEnv(env: Record<string, string | undefined>): ParsedEnv {
  const { renamed, fromOldName } = withRenamedVariables(env);
  const parsed = envSchema.safeParse(renamed);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = issue?.path.join(".") ?? "?";
    const oldName = fromOldName.get(name);
    throw new Error(`Invalid environment variable ${oldName ? `${oldName} (now ${name})` : name}: ${issue?.message ?? ""}`);
  }
  return parsed.data;
}

/** The handler options from the environment; throws naming the bad variable (never its value). */
export function optionsFromEnv(env: Record<string, string | undefined>): ProviderHandlerOptions {
  const e = parseEnv(env);
  refuseBrokenDeployOnVercel(env);
  const realtimeModel = e.LWC_REALTIME_MODEL ?? CODEX_REALTIME_MODEL;
  if (e.LWC_ALLOWED_REALTIME_MODELS.length > 0 && !e.LWC_ALLOWED_REALTIME_MODELS.includes(realtimeModel)) {
    throw new Error(
      "Invalid environment variable LWC_REALTIME_MODEL: it must be one of LWC_ALLOWED_REALTIME_MODELS" +
        (e.LWC_REALTIME_MODEL === undefined ? ` (unset, it is ${CODEX_REALTIME_MODEL})` : ""),
    );
  }
  const signInMethods = e.LWC_SIGN_IN.split(",");
  const history = historySettingFromEnv(env);
  return {
    basePath: e.LWC_API_BASE_PATH,
    signIn: {
      device: signInMethods.includes("device"),
      siwc: signInMethods.includes("siwc")
        ? {
            issuer: e.LWC_SIWC_ISSUER,
            apiBase: e.LWC_SIWC_API_BASE,
            agentName: e.LWC_SIWC_AGENT_NAME,
            ...(e.LWC_SIWC_HOST_ID ? { hostId: e.LWC_SIWC_HOST_ID } : {}),
            peerCheck: e.LWC_SIWC_PEER_CHECK === "on",
            hosted: siwcOnHostingPlatform(env),
          }
        : false,
    },
    secrets: e.LWC_SECRET.length > 0 ? e.LWC_SECRET : developmentSecrets(),
    allowedOrigins: e.LWC_ALLOWED_ORIGINS,
    sessionTtlMs: e.LWC_SESSION_TTL_SECONDS * 1000,
    cookie: { hostPrefix: e.LWC_COOKIE_HOST_PREFIX },
    sessionStore: sessionStoreFromEnv(env),
    enableResponsesProxy: e.LWC_RESPONSES_PROXY === "on",
    responsesProxy: {
      rateLimit: { limit: e.LWC_RATE_LIMIT_PER_MINUTE, windowMs: 60_000 },
      ...(e.LWC_ALLOWED_MODELS.length > 0 ? { allowedModels: e.LWC_ALLOWED_MODELS } : {}),
      maxRequestBytes: e.LWC_MAX_REQUEST_BYTES,
      maxStreamMs: e.LWC_MAX_STREAM_SECONDS * 1000,
      ...(e.LWC_INSTRUCTIONS ? { instructions: e.LWC_INSTRUCTIONS } : {}),
      instructionsMode: e.LWC_INSTRUCTIONS_MODE,
      webSearch: e.LWC_WEB_SEARCH === "on",
    },
    realtime: {
      enabled: e.LWC_REALTIME === "on",
      ...(e.LWC_REALTIME_TRANSPORTS.length > 0 ? { transports: e.LWC_REALTIME_TRANSPORTS } : {}),
      ...(e.LWC_REALTIME_VOICE_MODES.length > 0 ? { voiceModes: e.LWC_REALTIME_VOICE_MODES } : {}),
      maxRequestBytes: e.LWC_REALTIME_MAX_REQUEST_BYTES,
      rateLimit: { limit: e.LWC_REALTIME_RATE_LIMIT_PER_MINUTE, windowMs: 60_000 },
      ...(e.LWC_ALLOWED_REALTIME_MODELS.length > 0 ? { allowedModels: e.LWC_ALLOWED_REALTIME_MODELS } : {}),
      ...(e.LWC_REALTIME_MODEL ? { model: e.LWC_REALTIME_MODEL } : {}),
      ...(e.LWC_CHATGPT_URL ? { chatgptUrl: e.LWC_CHATGPT_URL } : {}),
      // Agent voice (docs/agent-voice.md): only with the codex executable, on a long-lived Node server.
      ...(e.LWC_CODEX_COMMAND
        ? {
            agentVoice: {
              command: e.LWC_CODEX_COMMAND,
              tools: referenceTools,
              idleTimeoutMs: e.LWC_AGENT_VOICE_IDLE_SECONDS * 1000,
              maxDurationMs: e.LWC_AGENT_VOICE_MAX_SECONDS * 1000,
              maxSessionsPerAccount: e.LWC_AGENT_VOICE_MAX_SESSIONS_PER_ACCOUNT,
              maxSessions: e.LWC_AGENT_VOICE_MAX_SESSIONS,
              sandbox: e.LWC_AGENT_SANDBOX,
              ...(e.LWC_AGENT_SANDBOX === "vercel"
                ? {
                    vercelSandbox: {
                      apiUrl: e.LWC_VERCEL_SANDBOX_API_URL,
                      snapshotId: e.LWC_VERCEL_SANDBOX_SNAPSHOT,
                      vcpus: e.LWC_VERCEL_SANDBOX_VCPUS,
                      timeoutMs: e.LWC_VERCEL_SANDBOX_TIMEOUT_SECONDS * 1000,
                    },
                  }
                : {}),
              ...(e.LWC_AGENT_SANDBOX_READONLY_PATHS.length > 0 ? { sandboxReadOnlyPaths: e.LWC_AGENT_SANDBOX_READONLY_PATHS } : {}),
              ...(e.LWC_AGENT_SANDBOX_ALLOW_HOSTS.length > 0 ? { sandboxAllowHosts: e.LWC_AGENT_SANDBOX_ALLOW_HOSTS } : {}),
              limits: {
                memoryMb: e.LWC_AGENT_MEMORY_MB,
                maxProcesses: e.LWC_AGENT_MAX_PROCESSES,
                cpuSeconds: e.LWC_AGENT_CPU_SECONDS,
                homeMb: e.LWC_AGENT_HOME_MB,
              },
            },
          }
        : {}),
    },
    loginRateLimit: { limit: e.LWC_LOGIN_RATE_LIMIT_PER_MINUTE, windowMs: 60_000 },
    loginGlobalRateLimit: { limit: e.LWC_LOGIN_GLOBAL_RATE_LIMIT_PER_MINUTE, windowMs: 60_000 },
    trustedProxyHops: e.LWC_TRUSTED_PROXY_HOPS,
    // The socket's address, reported by the Node HTTP server (instrumentation.ts): a hop counts only when it is there.
    peerAddress: connectionPeerAddress,
    upstream: {
      fetch: uncachedFetch,
      ...(e.LWC_ISSUER_URL ? { issuer: e.LWC_ISSUER_URL } : {}),
      ...(e.LWC_CODEX_BASE_URL ? { codexBaseUrl: e.LWC_CODEX_BASE_URL } : {}),
      ...(e.LWC_VERIFICATION_URL ? { verificationUrl: e.LWC_VERIFICATION_URL } : {}),
    },
    ...(e.LWC_CLIENT_VERSION ? { clientVersion: e.LWC_CLIENT_VERSION } : {}),
    ...(e.LWC_CODEX_COMMAND ? { confirmTool: referenceConfirmTool } : {}),
    history: history.on ? { location: history.location } : false,
  };
}

