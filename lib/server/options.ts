import "server-only";
import { z } from "zod";
import { codexConfigToml, codexUpstreamUrls } from "@/lib/agent-voice/codex-config";
import { parseAllowEntry } from "@/lib/agent-voice/sandbox/egress-allow-list";
import { API_ROUTE_FOLDER } from "@/lib/shared/base-path";
import type { AgentVoiceOptions, ConfirmTool } from "@/lib/agent-voice/types";
import { createMemoryStore } from "@/lib/stores/memory-store";
import { createRateLimiter, type RateLimiterFactory } from "@/lib/stores/rate-limit";
import type { KeyValueStore } from "@/lib/stores/types";
import type { HistoryLocation } from "@/lib/history/database";
import { DEFAULT_MAX_BYTES_PER_ACCOUNT } from "@/lib/history/limits";
import { resolveUpstreamConfig } from "@/lib/upstream/config";
import { INSTRUCTIONS_MODES, type InstructionsMode } from "@/lib/upstream/responses";
import type { UpstreamConfig } from "@/lib/upstream/types";
import { clientAddressOf, DEFAULT_TRUSTED_PROXY_HOPS } from "./http/client-address";
import type { ResolvedCookieOptions } from "./http/cookies";
import { consoleLogger, type Logger } from "@/lib/logger";
import { resolveRealtimeOptions, type RealtimeOptions, type ResolvedRealtimeOptions } from "./voice/options";
import { resolveSecrets } from "./session/seal";
import {
  DEFAULT_SIWC_AGENT_NAME,
  DEFAULT_SIWC_API_BASE,
  DEFAULT_SIWC_ISSUER,
  isValidAgentName,
  isValidHostId,
  normalizeSiwcUrl,
} from "./siwc/config";

export interface RateLimitOption {
  limit: number;
  windowMs: number;
}

/** Overrides for the session cookie. Anything left out keeps the default shown. */
interface SessionCookieOptions {
  /** Default `lwc_session` (the name in the contract, docs/api.md), whatever the scheme, unless hostPrefix is on. */
  name?: string;
  /**
   * Default false. `true` (recommended in production, `LWC_COOKIE_HOST_PREFIX=1`): a Secure cookie
   * is named `__Host-<name>`, which browsers only accept from this exact host over HTTPS with
   * Path=/ and no Domain, so a sibling subdomain cannot plant or shadow it; over plain HTTP the name
   * stays `<name>`. Code that reads the cookie by name must then read `__Host-<name>`. Cannot be
   * combined with `domain` or a `path` other than `/` (start-up error).
   */
  hostPrefix?: boolean;
  /** Default true. */
  httpOnly?: boolean;
  /** Default `lax`. `none` only works together with Secure. */
  sameSite?: "lax" | "strict" | "none";
  /** Default `/`. */
  path?: string;
  /** Default: none (host-only cookie). */
  domain?: string;
  /** Default `auto`: Secure when the request is HTTPS, directly or by X-Forwarded-Proto. */
  secure?: boolean | "auto";
  /** Seconds. Default: sessionTtlMs / 1000. */
  maxAgeSeconds?: number;
}

export interface ResponsesProxyOptions {
  /** Per-session limit of /responses. Default `DEFAULT_RESPONSES_RATE_LIMIT`; `false` turns it off. */
  rateLimit?: RateLimitOption | false;
  /** Models a request may name. Default: the account's own listed models (cached 5 minutes). */
  allowedModels?: string[];
  /** Largest accepted request body. Default `DEFAULT_MAX_REQUEST_BYTES`: room for a few shrunk images, under Vercel's 4.5 MB request limit. */
  maxRequestBytes?: number;
  /** The server's instructions (system prompt). Default: the upstream layer's `"You are a helpful assistant."`. */
  instructions?: string;
  /**
   * Default `default`: the server's instructions are sent when the request has none. `enforce`:
   * they are always sent, and a request's own instructions follow as its first `developer` message.
   */
  instructionsMode?: InstructionsMode;
  /**
   * Default true: a request may carry the backend's `web_search` tool, passed through as sent.
   * `false` (LWC_WEB_SEARCH=off): such a request is refused with 403 `web_search_disabled`.
   */
  webSearch?: boolean;
  /**
   * Longest a reply may stream, in ms; then it ends with the in-band `error` event. Default
   * `DEFAULT_MAX_STREAM_MS`, just under the route's Vercel `maxDuration` (300 s). `false`: no limit of our own.
   */
  maxStreamMs?: number | false;
}

/** Sign in with ChatGPT (SIWC, docs/siwc.md). Anything left out keeps the default shown. */
export interface SiwcOptions {
  /** The OpenID issuer. Default `DEFAULT_SIWC_ISSUER` (`https://auth.openai.com`). */
  issuer?: string;
  /** Where /models and /responses of a SIWC session go. Default `DEFAULT_SIWC_API_BASE`. */
  apiBase?: string;
  /** `agent_name_hint` on a person's first registration. Default `DEFAULT_SIWC_AGENT_NAME`. */
  agentName?: string;
  /** `ext_agent_host_id`. Default: one `urn:uuid:` generated and kept in the store before the first sign-in. */
  hostId?: string;
  /**
   * Default true: SIWC also needs the connection to come from a loopback address (`peerAddress`), so
   * a client on the network cannot pass for this machine by writing `Host: 127.0.0.1`. `false`
   * (`LWC_SIWC_PEER_CHECK=off`): the Host rule alone, for an app in a container whose published port
   * the host's browser reaches from the bridge's address (publish it on 127.0.0.1 only).
   */
  peerCheck?: boolean;
  /**
   * True when the server runs on a hosting platform (the app sets it for `VERCEL=1`): SIWC needs the
   * app on the person's own machine, so `GET /siwc/start` refuses (403 `siwc_requires_loopback`).
   */
  hosted?: boolean;
}

/** The chat history kept on the server (docs/history.md). */
export interface HistoryOptions {
  /** Where: Postgres (`{ engine: "postgres", url }`) or the embedded PGlite (`{ engine: "embedded", dataDir }`). */
  location: HistoryLocation;
  /** Per-session limit of the history routes. Default `DEFAULT_HISTORY_RATE_LIMIT`; `false` turns it off. */
  rateLimit?: RateLimitOption | false;
  /** Public share reads per client address. Default `DEFAULT_SHARED_RATE_LIMIT`; `false` turns it off. */
  sharedRateLimit?: RateLimitOption | false;
  /** Sealed bytes kept per provider account. Default `DEFAULT_MAX_BYTES_PER_ACCOUNT` (1 GB). */
  maxBytesPerAccount?: number;
}

/** Which sign-ins the server offers. Default: device code only. */
interface SignInOptions {
  /** Device-code sign-in (POST /login). Default true. */
  device?: boolean;
  /** Sign in with ChatGPT: on with `true` or settings, off (the default) with `false` or absent. */
  siwc?: SiwcOptions | boolean;
}

export interface ProviderHandlerOptions {
  /** Sign-in methods (`LWC_SIGN_IN`). Default `{ device: true }`. */
  signIn?: SignInOptions;
  /** Route prefix. Default `/api/provider`. */
  basePath?: string;
  /** Extra browser origins that pass the CSRF check and get credentialed CORS replies. Default none. */
  allowedOrigins?: string[];
  /** Session and cookie lifetime. Default `DEFAULT_SESSION_TTL_MS`. */
  sessionTtlMs?: number;
  cookie?: SessionCookieOptions;
  /** Default: an in-memory, process-local store. */
  sessionStore?: KeyValueStore;
  /**
   * Builds the limiter for each purpose (`login`, `login-global`, `responses`) from the store and
   * that purpose's prefix and limit. Default `createRateLimiter`: @upstash/ratelimit on Upstash, a
   * counter in memory, and a setIfAbsent-based fixed window on any other KeyValueStore.
   */
  createRateLimiter?: RateLimiterFactory;
  /** Cookie signing and record sealing secrets, each >= 32 chars. The first signs/seals, all verify. */
  secrets?: string[];
  /** Default true. `false` makes /models and /responses unknown paths (plain-text 404). */
  enableResponsesProxy?: boolean;
  responsesProxy?: ResponsesProxyOptions;
  /** Realtime voice (`POST /realtime`); see docs/voice.md. */
  realtime?: RealtimeOptions;
  /** POST /login attempts that need a new device code, per client address. Default `DEFAULT_LOGIN_RATE_LIMIT`. */
  loginRateLimit?: RateLimitOption | false;
  /**
   * New device codes across all clients: a backstop for when client addresses cannot be trusted
   * (each code costs an upstream request from this server's address). Default `DEFAULT_LOGIN_GLOBAL_RATE_LIMIT`.
   */
  loginGlobalRateLimit?: RateLimitOption | false;
  /**
   * How many proxies in front of the app append to X-Forwarded-For (and can be trusted): the client
   * address is the entry that many places from the right. Default `DEFAULT_TRUSTED_PROXY_HOPS`, 1 (Vercel, which replaces the
   * header, or one reverse proxy of yours that appends). When `peerAddress` reports the connection's
   * address, a hop counts only if it is actually there (the peer is a loopback or private address);
   * a public peer, or 0 hops, makes the peer the client address. 0 without a peer: no address is
   * trusted and every client shares one login bucket.
   */
  trustedProxyHops?: number;
  /**
   * The address the request's TCP connection came from, when the server knows it (undefined when
   * not). The Next.js app reads it from the Node HTTP server (`lib/server/http/connection-peer.ts`). Used
   * by the default client address rule (see trustedProxyHops); a client cannot invent it.
   */
  peerAddress?: (request: Request) => string | undefined;
  /**
   * The client address the per-address login limit counts by (overrides trustedProxyHops and
   * peerAddress). Whatever it returns is used as an IP when it is one and hashed to a fixed length otherwise.
   */
  clientAddress?: (request: Request) => string;
  upstream?: Partial<UpstreamConfig>;
  /** Sent upstream as client_version. Default the upstream layer's (0.171.0). */
  clientVersion?: string;
  dangerouslyAllowTokenExport?: boolean;
  dangerouslyAllowRefreshTokenExport?: boolean;
  /** Performs a tool action the person confirmed (POST /realtime/app-server/:id/confirm). */
  confirmTool?: ConfirmTool;
  /**
   * Chat history on the server. Absent (the default): no history routes' data and no `history` in
   * the session state (a handler embedded elsewhere is unchanged). `false`: history is off, the
   * routes answer 403 `history_disabled` and a signed-in state says `history: "browser"`. Settings:
   * on, and the state says `history: "server"`.
   */
  history?: HistoryOptions | false;
  /** Default: console. */
  logger?: Logger;
  /** Clock, epoch ms. Default Date.now. For tests. */
  now?: () => number;
}

// Each default is written here once; lib/env-options.ts derives the variables' defaults from these.
// The route folder app/api/provider: written in lib/shared/base-path.ts, which the browser reads too.
const DEFAULT_BASE_PATH = API_ROUTE_FOLDER;
export const DEFAULT_SESSION_TTL_MS = 7 * 24 * 60 * 60_000;
const DEFAULT_COOKIE_NAME = "lwc_session";
export const DEFAULT_RESPONSES_RATE_LIMIT: RateLimitOption = { limit: 30, windowMs: 60_000 };
export const DEFAULT_LOGIN_RATE_LIMIT: RateLimitOption = { limit: 10, windowMs: 60_000 };
export const DEFAULT_LOGIN_GLOBAL_RATE_LIMIT: RateLimitOption = { limit: 100, windowMs: 60_000 };
export const DEFAULT_MAX_REQUEST_BYTES = 4_000_000;
export const DEFAULT_MAX_STREAM_MS = 290_000;
/** A first sync pages through the history: a few dozen requests; tabs and devices then pull on focus. */
const DEFAULT_HISTORY_RATE_LIMIT: RateLimitOption = { limit: 300, windowMs: 60_000 };
const DEFAULT_SHARED_RATE_LIMIT: RateLimitOption = { limit: 60, windowMs: 60_000 };

interface ResolvedHistoryOptions {
  location: HistoryLocation;
  rateLimit: RateLimitOption | false;
  sharedRateLimit: RateLimitOption | false;
  maxBytesPerAccount: number;
}

export interface ResolvedSiwcOptions {
  issuer: string;
  apiBase: string;
  agentName: string;
  hostId?: string;
  peerCheck: boolean;
  hosted: boolean;
}

interface ResolvedSignIn {
  device: boolean;
  /** Undefined when SIWC is off. */
  siwc?: ResolvedSiwcOptions;
}

export interface ResolvedOptions {
  basePath: string;
  signIn: ResolvedSignIn;
  allowedOrigins: ReadonlySet<string>;
  sessionTtlMs: number;
  cookie: ResolvedCookieOptions;
  store: KeyValueStore;
  createRateLimiter: RateLimiterFactory;
  secrets: string[];
  enableResponsesProxy: boolean;
  responsesRateLimit: RateLimitOption | false;
  allowedModels: ReadonlySet<string> | undefined;
  maxRequestBytes: number;
  maxStreamMs: number | false;
  instructions: string | undefined;
  instructionsMode: InstructionsMode;
  webSearch: boolean;
  realtime: ResolvedRealtimeOptions;
  loginRateLimit: RateLimitOption | false;
  loginGlobalRateLimit: RateLimitOption | false;
  clientAddress: (request: Request) => string;
  /** The connection's own address, when the server knows it. */
  peerAddress: (request: Request) => string | undefined;
  upstream: UpstreamConfig;
  dangerouslyAllowTokenExport: boolean;
  dangerouslyAllowRefreshTokenExport: boolean;
  agentVoice: AgentVoiceOptions | undefined;
  confirmTool: ConfirmTool | undefined;
  /** undefined: not configured (no `history` in the session state); false: off. */
  history: ResolvedHistoryOptions | false | undefined;
  logger: Logger;
  now: () => number;
}

const positiveInt = z.number().int().positive();
const rateLimitSchema = z.union([z.literal(false), z.object({ limit: positiveInt, windowMs: positiveInt })]);
const numbersSchema = z.object({
  sessionTtlMs: positiveInt,
  maxRequestBytes: positiveInt,
  maxStreamMs: z.union([z.literal(false), positiveInt]),
  responsesRateLimit: rateLimitSchema,
  loginRateLimit: rateLimitSchema,
  loginGlobalRateLimit: rateLimitSchema,
  cookieMaxAgeSeconds: z.number().int().nonnegative(),
  cookieName: z.string().regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, "must be a cookie token"),
  trustedProxyHops: z.number().int().min(0).max(20),
  historyRateLimit: rateLimitSchema,
  sharedRateLimit: rateLimitSchema,
  maxBytesPerAccount: positiveInt,
});

/** `/api/provider/` → `/api/provider`; always one leading slash. */
function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.trim().replace(/\/+$/, "");
  if (trimmed === "") return "";
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

/** Normalises each allowed origin to its `scheme://host[:port]` form; throws on one that is not an origin. */
function normalizeOrigins(origins: string[]): Set<string> {
  const normalized = new Set<string>();
  for (const origin of origins) {
    const trimmed = origin.trim();
    if (trimmed === "") continue;
    if (!URL.canParse(trimmed) || new URL(trimmed).origin === "null") {
      throw new Error(`allowedOrigins: "${trimmed}" is not an http(s) origin`);
    }
    normalized.add(new URL(trimmed).origin);
  }
  return normalized;
}

function invalidOption(name: string, why: string): never {
  throw new Error(`Invalid provider handler option ${name}: ${why}`);
}

/**
 * Agent voice's options as the bridge uses them: the lockdown config (and, for a local upstream,
 * the offline keys) unless the embedder writes its own, and the sandbox's whole allow-list: the
 * hosts that config has codex contact, then the extra ones (checked here, so a bad one stops the
 * start-up naming the option).
 */
function resolveAgentVoice(realtime: RealtimeOptions | undefined, upstream: UpstreamConfig): AgentVoiceOptions | undefined {
  // `appServer` is the option's old name: still read, unless the new one is given.
  const optionName = realtime?.agentVoice ? "agentVoice" : "appServer";
  const agentVoice = realtime?.agentVoice ?? realtime?.appServer;
  if (!agentVoice?.command.trim() || realtime?.enabled === false) return undefined;
  const urls = { codexBaseUrl: upstream.codexBaseUrl, issuerUrl: upstream.issuer };
  const extra = agentVoice.sandboxAllowHosts ?? [];
  for (const entry of extra) {
    try {
      parseAllowEntry(entry);
    } catch (error) {
      invalidOption(`realtime.${optionName}.sandboxAllowHosts`, (error as Error).message);
    }
  }
  return { configToml: codexConfigToml(urls), ...agentVoice, sandboxAllowHosts: [...codexUpstreamUrls(urls), ...extra] };
}

function resolveSiwc(siwc: SiwcOptions): ResolvedSiwcOptions {
  const issuer = normalizeSiwcUrl(siwc.issuer ?? DEFAULT_SIWC_ISSUER);
  if (issuer === null) invalidOption("signIn.siwc.issuer", "must be an https URL (http only on a loopback host)");
  const apiBase = normalizeSiwcUrl(siwc.apiBase ?? DEFAULT_SIWC_API_BASE);
  if (apiBase === null) invalidOption("signIn.siwc.apiBase", "must be an https URL (http only on a loopback host)");
  const agentName = siwc.agentName ?? DEFAULT_SIWC_AGENT_NAME;
  if (!isValidAgentName(agentName)) invalidOption("signIn.siwc.agentName", "must be 1-100 characters without control characters");
  if (siwc.hostId !== undefined && !isValidHostId(siwc.hostId)) {
    invalidOption("signIn.siwc.hostId", "must be urn:uuid:<UUIDv4>, urn:ietf:params:oauth:jwk-thumbprint:… or did:key:…");
  }
  return {
    issuer,
    apiBase,
    agentName: agentName.trim(),
    ...(siwc.hostId !== undefined ? { hostId: siwc.hostId } : {}),
    peerCheck: siwc.peerCheck ?? true,
    hosted: siwc.hosted ?? false,
  };
}

function resolveSignIn(signIn: SignInOptions = {}): ResolvedSignIn {
  const device = signIn.device ?? true;
  const siwc = signIn.siwc === true ? {} : signIn.siwc || undefined;
  if (!device && siwc === undefined) invalidOption("signIn", "at least one sign-in method must be on");
  return { device, ...(siwc !== undefined ? { siwc: resolveSiwc(siwc) } : {}) };
}

/** Applies every documented default; throws a clear Error on an invalid option. */
export function resolveOptions(options: ProviderHandlerOptions = {}): ResolvedOptions {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? consoleLogger;
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  const proxy = options.responsesProxy ?? {};
  const cookieOverrides = options.cookie ?? {};
  const cookieName = cookieOverrides.name ?? DEFAULT_COOKIE_NAME;
  const cookieMaxAgeSeconds = cookieOverrides.maxAgeSeconds ?? Math.floor(sessionTtlMs / 1000);

  const checked = numbersSchema.safeParse({
    sessionTtlMs,
    maxRequestBytes: proxy.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES,
    maxStreamMs: proxy.maxStreamMs ?? DEFAULT_MAX_STREAM_MS,
    responsesRateLimit: proxy.rateLimit ?? DEFAULT_RESPONSES_RATE_LIMIT,
    loginRateLimit: options.loginRateLimit ?? DEFAULT_LOGIN_RATE_LIMIT,
    loginGlobalRateLimit: options.loginGlobalRateLimit ?? DEFAULT_LOGIN_GLOBAL_RATE_LIMIT,
    cookieMaxAgeSeconds,
    cookieName,
    trustedProxyHops: options.trustedProxyHops ?? DEFAULT_TRUSTED_PROXY_HOPS,
    historyRateLimit: (options.history ? options.history.rateLimit : undefined) ?? DEFAULT_HISTORY_RATE_LIMIT,
    sharedRateLimit: (options.history ? options.history.sharedRateLimit : undefined) ?? DEFAULT_SHARED_RATE_LIMIT,
    maxBytesPerAccount: (options.history ? options.history.maxBytesPerAccount : undefined) ?? DEFAULT_MAX_BYTES_PER_ACCOUNT,
  });
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new Error(`Invalid provider handler option ${issue?.path.join(".") ?? "?"}: ${issue?.message ?? ""}`);
  }

  const upstreamOverrides: Partial<UpstreamConfig> = { ...options.upstream };
  if (options.clientVersion !== undefined) upstreamOverrides.clientVersion = options.clientVersion;
  const hostPrefixAllowed = cookieOverrides.domain === undefined && (cookieOverrides.path ?? "/") === "/";
  if (cookieOverrides.hostPrefix === true && !hostPrefixAllowed) {
    throw new Error("Invalid provider handler option cookie.hostPrefix: a __Host- cookie cannot have a domain or a path other than /");
  }
  const instructionsMode = proxy.instructionsMode ?? "default";
  if (!INSTRUCTIONS_MODES.includes(instructionsMode)) {
    throw new Error(`Invalid provider handler option responsesProxy.instructionsMode: must be one of ${INSTRUCTIONS_MODES.join(", ")}`);
  }
  const trustedProxyHops = checked.data.trustedProxyHops;
  const allowedModels = proxy.allowedModels?.map((model) => model.trim()).filter((model) => model !== "");
  const upstream = resolveUpstreamConfig(upstreamOverrides);

  return {
    basePath: normalizeBasePath(options.basePath ?? DEFAULT_BASE_PATH),
    signIn: resolveSignIn(options.signIn),
    allowedOrigins: normalizeOrigins(options.allowedOrigins ?? []),
    sessionTtlMs,
    cookie: {
      name: cookieName,
      httpOnly: cookieOverrides.httpOnly ?? true,
      sameSite: cookieOverrides.sameSite ?? "lax",
      path: cookieOverrides.path ?? "/",
      ...(cookieOverrides.domain !== undefined ? { domain: cookieOverrides.domain } : {}),
      secure: cookieOverrides.secure ?? "auto",
      maxAgeSeconds: cookieMaxAgeSeconds,
      hostPrefix: cookieOverrides.hostPrefix ?? false,
    },
    store: options.sessionStore ?? createMemoryStore({ now }),
    createRateLimiter: options.createRateLimiter ?? createRateLimiter,
    secrets: resolveSecrets(options.secrets, logger),
    enableResponsesProxy: options.enableResponsesProxy ?? true,
    responsesRateLimit: checked.data.responsesRateLimit,
    allowedModels: allowedModels && allowedModels.length > 0 ? new Set(allowedModels) : undefined,
    maxRequestBytes: checked.data.maxRequestBytes,
    maxStreamMs: checked.data.maxStreamMs,
    instructions: proxy.instructions?.trim() ? proxy.instructions : undefined,
    instructionsMode,
    webSearch: proxy.webSearch ?? true,
    realtime: resolveRealtimeOptions(options.realtime),
    loginRateLimit: checked.data.loginRateLimit,
    loginGlobalRateLimit: checked.data.loginGlobalRateLimit,
    clientAddress:
      options.clientAddress ?? ((request) => clientAddressOf(request, trustedProxyHops, options.peerAddress?.(request))),
    peerAddress: options.peerAddress ?? (() => undefined),
    upstream,
    dangerouslyAllowTokenExport: options.dangerouslyAllowTokenExport ?? false,
    dangerouslyAllowRefreshTokenExport: options.dangerouslyAllowRefreshTokenExport ?? false,
    agentVoice: resolveAgentVoice(options.realtime, upstream),
    confirmTool: options.confirmTool,
    history: options.history
      ? {
          location: options.history.location,
          rateLimit: checked.data.historyRateLimit,
          sharedRateLimit: checked.data.sharedRateLimit,
          maxBytesPerAccount: checked.data.maxBytesPerAccount,
        }
      : options.history,
    logger,
    now,
  };
}
