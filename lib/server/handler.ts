import "server-only";
import { StoreUnavailableError, type RateLimiter, type RateLimitPurpose } from "@/lib/stores/types";
import type { ServerContext } from "./context";
import { createCookieSigner } from "./http/cookies";
import { LOGIN_REUSE_RATE_LIMIT } from "./session/device-login";
import { applyCorsHeaders, applyPreflightHeaders, checkOrigin, type OriginVerdict } from "./http/csrf";
import { ApiError, errorResponse } from "./http/api-error";
import { ensureNoStore, textResponse } from "./http/json";
import { describeErrorForLog, LOG_PREFIX, REQUEST_ID_HEADER, requestIdOf, runWithRequestId, withRequestIds } from "@/lib/logger";
import { resolveOptions, type ProviderHandlerOptions, type RateLimitOption } from "./options";
import type { PublicSessionState } from "./session/public-state";
import { toPublicState, withHistory, withSignInChoices } from "./session/public-state";
import { createHistoryRoutes } from "./history/routes";
import { createHistoryStore, type HistoryStore } from "@/lib/history/store";
import { signInChoices } from "./siwc/loopback";
import { createSiwcClient } from "./siwc/client";
import { CALLBACK_PATH } from "./siwc/loopback";
import { createSiwcRoutes } from "./siwc/routes";
import { createRefreshCoordinator } from "./session/refresh";
import { createRouter, type RouteDefinition, type RouteHandler } from "./http/router";
import { createLoginRoutes } from "./session/routes";
import { createModelBackends } from "./models/backend";
import { createModelsRoute } from "./models/route";
import { createAgentVoiceRoutes, type AgentVoiceState } from "./agent-voice/routes";
import type { LimitMechanism } from "@/lib/agent-voice/sandbox/limits";
import { createRealtimeRoute } from "./voice/route";
import { createResponsesRoute } from "./responses/route";
import { createSessionManager } from "./session/manager";
import { createSealer } from "./session/seal";
import { createSessionStore } from "./session/store";
import { createTokenExport, type ExportedTokens } from "./session/token-export";

export interface ProviderHandler {
  basePath: string;
  /** The whole HTTP service: (Request) => Response. */
  handler(request: Request): Promise<Response>;
  /**
   * POST /responses for the request's session (cookie and body from `request`), whatever its URL.
   * The request must carry the browser's `Origin` (same origin or in allowedOrigins; none: 403
   * `origin_required`), unless `csrf: "skip-server-call"` says no browser request needs checking.
   */
  proxyFetch(request: Request, options?: ProxyFetchOptions): Promise<Response>;
  /**
   * A route of your own, run as the handler runs its routes (docs/server.md): a non-GET request
   * whose `Origin` fails the CSRF rule gets 403 `origin_not_allowed` before `serve` runs; an
   * `ApiError` it throws is answered with its code's status, a store outage with 503
   * `store_unavailable`, anything else with 500 `internal_error` (one log line, no details); every
   * reply is no-store and carries `x-request-id` (and CORS headers for an `allowedOrigins` origin).
   */
  route(serve: (request: Request) => Promise<Response>): (request: Request) => Promise<Response>;
  /** The public state of the request's session. Never polls, refreshes or writes. */
  getSession(request: Request): Promise<PublicSessionState>;
  dangerouslyGetTokens(request: Request, options?: { includeRefreshToken?: boolean }): Promise<ExportedTokens>;
  /** Whether the store answers (one read, bounded by a deadline). For health checks; says nothing secret. */
  checkStore(): Promise<"ok" | "degraded">;
  /**
   * Agent voice, for health checks: `off` (not configured), `sandboxed` (codex runs inside the
   * bubblewrap sandbox), `vercel` (in a Vercel Sandbox microVM per session), `unsandboxed`
   * (LWC_AGENT_SANDBOX=off) or `unavailable` (the sandbox cannot start;
   * starts answer 503 `agent_sandbox_unavailable`).
   */
  agentVoiceState(): Promise<"off" | AgentVoiceState>;
  /** The chat history kept on the server, when the `history` option turned it on (docs/history.md). */
  history: HistoryStore | undefined;
  /**
   * How each codex process's memory and process caps hold, for health checks: `cgroup` (a cgroup
   * v2 group of its own) or `rlimit`; null when agent voice is off or unavailable.
   */
  agentVoiceLimits(): Promise<LimitMechanism | null>;
  /**
   * Shutdown: ends every agent-voice live session and codex process (and removes their folders),
   * and closes the history database; later agent-voice starts answer 503. Call it when the server
   * stops (the app does on SIGTERM and SIGINT: instrumentation.ts).
   */
  close(): Promise<void>;
}

export interface ProxyFetchOptions {
  /**
   * Default `"check"`: the request's `Origin` must pass the CSRF rule, and a request without one is
   * refused (403 `origin_required`): server code forwards the browser's Origin with its cookie.
   * `"skip-server-call"`: no Origin check, for a call no browser request can have forged (a job of
   * your own, or a route that already checked the browser's request itself).
   */
  csrf?: "check" | "skip-server-call";
}

const STORE_CHECK_DEADLINE_MS = 3_000;

const LOGIN_RATE_LIMIT_PREFIX = "lwc:rl:login";
const LOGIN_GLOBAL_RATE_LIMIT_PREFIX = "lwc:rl:login-all";
const LOGIN_REUSE_RATE_LIMIT_PREFIX = "lwc:rl:login-reuse";
const RESPONSES_RATE_LIMIT_PREFIX = "lwc:rl:responses";
const MODELS_RATE_LIMIT_PREFIX = "lwc:rl:models";
const REALTIME_RATE_LIMIT_PREFIX = "lwc:rl:realtime";
const HISTORY_RATE_LIMIT_PREFIX = "lwc:rl:history";
const SHARED_RATE_LIMIT_PREFIX = "lwc:rl:shared";

const RATE_LIMIT_PREFIXES: Record<RateLimitPurpose, string> = {
  login: LOGIN_RATE_LIMIT_PREFIX,
  "login-global": LOGIN_GLOBAL_RATE_LIMIT_PREFIX,
  "login-reuse": LOGIN_REUSE_RATE_LIMIT_PREFIX,
  responses: RESPONSES_RATE_LIMIT_PREFIX,
  models: MODELS_RATE_LIMIT_PREFIX,
  realtime: REALTIME_RATE_LIMIT_PREFIX,
  history: HISTORY_RATE_LIMIT_PREFIX,
  shared: SHARED_RATE_LIMIT_PREFIX,
};

const SKIPPED: OriginVerdict = { kind: "same-origin-or-absent" };

export function createProviderHandler(options: ProviderHandlerOptions = {}): ProviderHandler {
  const configured = resolveOptions(options);
  // Every line logged while a request is handled ends with its request id (also sent as x-request-id).
  const resolved = { ...configured, logger: withRequestIds(configured.logger) };
  const { store, logger } = resolved;
  const sealer = createSealer(resolved.secrets);
  const sessions = createSessionStore(store, sealer, resolved.now);
  const siwc = resolved.signIn.siwc
    ? createSiwcClient({ options: resolved.signIn.siwc, upstream: resolved.upstream, store, sealer, logger, now: resolved.now })
    : undefined;
  // A refresh that finds a login dead (refresh token invalid) ends its live agent voice at once.
  let onLoginExpired = (loginId: string): void => void loginId;
  /** The limiter for one purpose from the configured factory; undefined when that limit is off. */
  const limiterFor = (purpose: RateLimitPurpose, setting: RateLimitOption | false): RateLimiter | undefined =>
    setting
      ? resolved.createRateLimiter(store, { purpose, prefix: RATE_LIMIT_PREFIXES[purpose], now: resolved.now, ...setting })
      : undefined;
  const ctx: ServerContext = {
    options: resolved,
    sessions,
    sealer,
    signer: createCookieSigner(resolved.secrets),
    refresher: createRefreshCoordinator({
      store,
      sessions,
      upstream: resolved.upstream,
      now: resolved.now,
      onLoginExpired: (loginId) => onLoginExpired(loginId),
      ...(siwc ? { siwc } : {}),
    }),
    siwc,
    loginLimiter: limiterFor("login", resolved.loginRateLimit),
    loginReuseLimiter: limiterFor("login-reuse", resolved.loginRateLimit && LOGIN_REUSE_RATE_LIMIT),
    loginGlobalLimiter: limiterFor("login-global", resolved.loginGlobalRateLimit),
    responsesLimiter: limiterFor("responses", resolved.responsesRateLimit),
    modelsLimiter: limiterFor("models", resolved.responsesRateLimit),
    realtimeLimiter: resolved.realtime.enabled ? limiterFor("realtime", resolved.realtime.rateLimit) : undefined,
    historyLimiter: resolved.history ? limiterFor("history", resolved.history.rateLimit) : undefined,
    sharedLimiter: resolved.history ? limiterFor("shared", resolved.history.sharedRateLimit) : undefined,
  };
  // The chat history (docs/history.md): its database opens on first use, or at start (instrumentation.ts).
  const history: HistoryStore | undefined = resolved.history
    ? createHistoryStore({
        location: resolved.history.location,
        secrets: resolved.secrets,
        now: resolved.now,
        maxBytesPerAccount: resolved.history.maxBytesPerAccount,
      })
    : undefined;
  const manager = createSessionManager(ctx);
  const backends = createModelBackends(ctx, manager);
  const choicesFor = (request: Request) => signInChoices(request, resolved);
  const login = createLoginRoutes(ctx, manager, choicesFor);
  const responses = createResponsesRoute(ctx, manager, backends, history);
  const agentVoice = resolved.agentVoice ? createAgentVoiceRoutes(ctx, manager, backends, resolved.agentVoice) : undefined;
  if (agentVoice) onLoginExpired = (loginId) => void agentVoice.closeForLogin(loginId, "login_expired");
  // Logout also ends the login's live agent-voice session.
  const logout: RouteHandler = async (request, params) => {
    const loginId = (await manager.read(request))?.record.loginId;
    const response = await login.logout(request, params);
    if (agentVoice && loginId !== undefined) await agentVoice.closeForLogin(loginId, "logged_out");
    return response;
  };

  // The realtime routes join this table later (patterns with `:id` segments are supported).
  const siwcRoutes = createSiwcRoutes(ctx, manager);
  const routes: RouteDefinition[] = [
    { pattern: "/login", methods: { POST: login.login } },
    { pattern: "/status", methods: { GET: login.status } },
    { pattern: "/session", methods: { GET: login.session } },
    { pattern: "/logout", methods: { POST: logout } },
    ...siwcRoutes.routes,
  ];
  if (resolved.enableResponsesProxy) {
    routes.push(
      { pattern: "/models", methods: { GET: createModelsRoute(ctx, manager, backends) } },
      { pattern: "/responses", methods: { POST: responses } },
    );
  }
  if (agentVoice) routes.push(...agentVoice.routes);
  if (resolved.realtime.enabled) routes.push({ pattern: "/realtime", methods: { POST: createRealtimeRoute(ctx, manager) } });
  // Configured either way (on, or off with a clear 403), the routes exist; unconfigured, they do not.
  if (resolved.history !== undefined) routes.push(...createHistoryRoutes(ctx, manager, history));
  const router = createRouter(resolved.basePath, routes);

  /**
   * A refusal a guard threw (ApiError) → its reply; store trouble → 503; anything unexpected → 500
   * without details (one log line, no stack).
   */
  async function runSafely(route: RouteHandler, request: Request, params: Record<string, string>, label: string) {
    try {
      return await route(request, params);
    } catch (error) {
      if (error instanceof ApiError) return error.toResponse();
      if (error instanceof StoreUnavailableError) {
        logger.warn(`${LOG_PREFIX} session store unavailable on ${request.method} ${label}`);
        return errorResponse("store_unavailable");
      }
      logger.error(`${LOG_PREFIX} internal error on ${request.method} ${label}: ${describeErrorForLog(error)}`);
      return errorResponse("internal_error");
    }
  }

  function finish(response: Response, verdict: OriginVerdict): Response {
    const final = ensureNoStore(response);
    // Whatever a reply (or an upstream reply passed through) claims to be, browsers must not sniff it into HTML.
    final.headers.set("x-content-type-options", "nosniff");
    if (verdict.kind === "allowed-cross-origin") applyCorsHeaders(final.headers, verdict.origin);
    return final;
  }

  function rejectOrigin(verdict: Extract<OriginVerdict, { kind: "rejected" }>): Response {
    return errorResponse("origin_not_allowed", { origin: verdict.origin });
  }

  /**
   * Runs one request with its id in scope for the logger, and puts the id on the reply. Every reply
   * reaching it is already no-store with mutable headers (`finish`, or a plain-text 404 of ours).
   */
  function withRequestId<Rest extends unknown[]>(serve: (request: Request, ...rest: Rest) => Promise<Response>) {
    return async (request: Request, ...rest: Rest): Promise<Response> => {
      const requestId = requestIdOf(request);
      const response = await runWithRequestId(requestId, () => serve(request, ...rest));
      response.headers.set(REQUEST_ID_HEADER, requestId);
      return response;
    };
  }

  /** SIWC's fixed callback at the app's root (outside basePath), only while SIWC is on. */
  async function serveCallback(request: Request, callback: RouteHandler): Promise<Response> {
    const verdict = checkOrigin(request, resolved.allowedOrigins);
    if (request.method !== "GET") return finish(textResponse("Method Not Allowed", 405, { allow: "GET" }), verdict);
    return finish(await runSafely(callback, request, {}, CALLBACK_PATH), verdict);
  }

  async function serveRequest(request: Request): Promise<Response> {
    if (siwcRoutes.callback && new URL(request.url).pathname === CALLBACK_PATH) return serveCallback(request, siwcRoutes.callback);
    const match = router.match(request);
    if (match.kind === "not_found") return textResponse("Not Found", 404);
    const verdict = checkOrigin(request, resolved.allowedOrigins);
    const { method } = match;

    if (method === "OPTIONS") {
      if (verdict.kind === "rejected") return finish(rejectOrigin(verdict), verdict);
      const preflight = new Response(null, { status: 204, headers: { allow: match.allow } });
      if (verdict.kind === "allowed-cross-origin") applyPreflightHeaders(preflight.headers, match.allow);
      return finish(preflight, verdict);
    }
    if (!match.handler) return finish(textResponse("Method Not Allowed", 405, { allow: match.allow }), verdict);
    // CSRF: every non-GET route checks Origin.
    if (method !== "GET" && method !== "HEAD" && verdict.kind === "rejected") return finish(rejectOrigin(verdict), verdict);
    return finish(await runSafely(match.handler, request, match.params, match.pattern), verdict);
  }

  async function serveProxyFetch(request: Request, proxyOptions: ProxyFetchOptions = {}): Promise<Response> {
    if (!resolved.enableResponsesProxy) return textResponse("Not Found", 404);
    const skip = proxyOptions.csrf === "skip-server-call";
    // Over HTTP a request without Origin passes (the contract, docs/api.md); in-process it is a call nobody judged.
    if (!skip && !request.headers.has("origin")) {
      return finish(errorResponse("origin_required"), SKIPPED);
    }
    const verdict = skip ? SKIPPED : checkOrigin(request, resolved.allowedOrigins);
    if (verdict.kind === "rejected") return finish(rejectOrigin(verdict), verdict);
    return finish(await runSafely(responses, request, {}, "/responses (proxyFetch)"), verdict);
  }

  function route(serve: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
    return withRequestId(async (request: Request) => {
      const verdict = checkOrigin(request, resolved.allowedOrigins);
      const method = request.method.toUpperCase();
      if (method !== "GET" && method !== "HEAD" && verdict.kind === "rejected") return finish(rejectOrigin(verdict), verdict);
      return finish(await runSafely(serve, request, {}, new URL(request.url).pathname), verdict);
    });
  }

  async function checkStore(): Promise<"ok" | "degraded"> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("store check timed out")), STORE_CHECK_DEADLINE_MS);
    });
    try {
      await Promise.race([store.get("lwc:health"), deadline]);
      return "ok";
    } catch (error) {
      logger.warn(`${LOG_PREFIX} health check: session store unavailable (${describeErrorForLog(error)})`);
      return "degraded";
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    basePath: resolved.basePath,
    handler: withRequestId(serveRequest),
    proxyFetch: withRequestId(serveProxyFetch),
    route,
    checkStore,
    agentVoiceState: async () => (agentVoice ? agentVoice.state() : "off"),
    agentVoiceLimits: async () => (agentVoice ? agentVoice.limits() : null),
    async getSession(request) {
      const state = toPublicState((await manager.readOwn(request))?.record ?? null, resolved.now());
      return withHistory(withSignInChoices(state, choicesFor(request)), resolved.history);
    },
    dangerouslyGetTokens: createTokenExport(ctx, manager),
    history,
    close: async () => {
      await Promise.all([agentVoice?.close(), history?.close()]);
    },
  };
}
