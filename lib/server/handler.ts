import "server-only";
import type { RateLimiter, RateLimitPurpose } from "@/lib/stores/types";
import { createAccountModelsCache } from "./account-models";
import type { ServerContext } from "./context";
import { createCookieSigner } from "./cookies";
import { LOGIN_REUSE_RATE_LIMIT } from "./device-login";
import { applyCorsHeaders, applyPreflightHeaders, checkOrigin, type OriginVerdict } from "./csrf";
import { ensureNoStore, errorResponse, textResponse } from "./json";
import { describeErrorForLog, LOG_PREFIX, REQUEST_ID_HEADER, requestIdOf, runWithRequestId, withRequestIds } from "@/lib/logger";
import { resolveOptions, type ProviderHandlerOptions, type RateLimitOption } from "./options";
import type { PublicSessionState } from "./public-state";
import { toPublicState, withSignInChoices } from "./public-state";
import { signInChoices } from "./siwc/loopback";
import { createSiwcClient } from "./siwc/client";
import { CALLBACK_PATH } from "./siwc/loopback";
import { createSiwcRoutes } from "./siwc/routes";
import { createRefreshCoordinator } from "./refresh";
import { createRouter, type RouteDefinition, type RouteHandler } from "./router";
import { createLoginRoutes } from "./routes/login";
import { createModelsRoute } from "./routes/models";
import { createAppServerRoutes, type AgentVoiceState } from "./routes/realtime-app-server";
import type { LimitMechanism } from "@/lib/agent-voice/sandbox/limits";
import { createRealtimeRoute } from "./routes/realtime";
import { createResponsesRoute } from "./routes/responses";
import { createSessionManager } from "./session-manager";
import { createSealer } from "./session-seal";
import { createSessionStore } from "./session-store";
import { createTokenExport, type ExportedTokens } from "./token-export";

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
  /** The public state of the request's session. Never polls, refreshes or writes. */
  getSession(request: Request): Promise<PublicSessionState>;
  dangerouslyGetTokens(request: Request, options?: { includeRefreshToken?: boolean }): Promise<ExportedTokens>;
  /** Whether the store answers (one read, bounded by a deadline). For health checks; says nothing secret. */
  checkStore(): Promise<"ok" | "degraded">;
  /**
   * Agent voice, for health checks: `off` (not configured), `sandboxed` (codex runs inside the
   * sandbox), `unsandboxed` (LWC_AGENT_SANDBOX=off) or `unavailable` (the sandbox cannot start;
   * starts answer 503 `agent_sandbox_unavailable`).
   */
  agentVoiceState(): Promise<"off" | AgentVoiceState>;
  /**
   * How each codex process's memory and process caps hold, for health checks: `cgroup` (a cgroup
   * v2 group of its own) or `rlimit`; null when agent voice is off or unavailable.
   */
  agentVoiceLimits(): Promise<LimitMechanism | null>;
  /**
   * Shutdown: ends every agent-voice live session and codex process (and removes their folders);
   * later agent-voice starts answer 503. Call it when the server stops (the app does on SIGTERM
   * and SIGINT: instrumentation.ts). Nothing else needs closing.
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

const RATE_LIMIT_PREFIXES: Record<RateLimitPurpose, string> = {
  login: LOGIN_RATE_LIMIT_PREFIX,
  "login-global": LOGIN_GLOBAL_RATE_LIMIT_PREFIX,
  "login-reuse": LOGIN_REUSE_RATE_LIMIT_PREFIX,
  responses: RESPONSES_RATE_LIMIT_PREFIX,
  models: MODELS_RATE_LIMIT_PREFIX,
  realtime: REALTIME_RATE_LIMIT_PREFIX,
};

const ORIGIN_REQUIRED_MESSAGE =
  'proxyFetch needs the browser request\'s Origin header for the CSRF check; pass { csrf: "skip-server-call" } for a call no browser request started.';
const SKIPPED: OriginVerdict = { kind: "same-origin-or-absent" };

function isStoreUnavailable(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === "store_unavailable";
}

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
  };
  const manager = createSessionManager(ctx);
  const modelsCache = createAccountModelsCache(resolved.now);
  const login = createLoginRoutes(ctx, manager);
  const responses = createResponsesRoute(ctx, manager, modelsCache);
  const appServer = resolved.appServer ? createAppServerRoutes(ctx, manager, modelsCache, resolved.appServer) : undefined;
  if (appServer) onLoginExpired = (loginId) => void appServer.closeForLogin(loginId, "login_expired");
  // Logout also ends the login's live agent-voice session.
  const logout: RouteHandler = async (request, params) => {
    const loginId = (await manager.read(request))?.record.loginId;
    const response = await login.logout(request, params);
    if (appServer && loginId !== undefined) await appServer.closeForLogin(loginId, "logged_out");
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
      { pattern: "/models", methods: { GET: createModelsRoute(ctx, manager, modelsCache) } },
      { pattern: "/responses", methods: { POST: responses } },
    );
  }
  if (appServer) routes.push(...appServer.routes);
  if (resolved.realtime.enabled) routes.push({ pattern: "/realtime", methods: { POST: createRealtimeRoute(ctx, manager) } });
  const router = createRouter(resolved.basePath, routes);

  /** Store trouble → 503; anything unexpected → 500 without details (one log line, no stack). */
  async function runSafely(route: RouteHandler, request: Request, params: Record<string, string>, label: string) {
    try {
      return await route(request, params);
    } catch (error) {
      if (isStoreUnavailable(error)) {
        logger.warn(`${LOG_PREFIX} session store unavailable on ${request.method} ${label}`);
        return errorResponse(503, "store_unavailable", {
          message: "The session store is unavailable. Try again shortly.",
        });
      }
      logger.error(`${LOG_PREFIX} internal error on ${request.method} ${label}: ${describeErrorForLog(error)}`);
      return errorResponse(500, "internal_error");
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
    return errorResponse(403, "origin_not_allowed", { origin: verdict.origin });
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
    // Over HTTP a request without Origin passes (the contract); in-process it is a call nobody judged.
    if (!skip && !request.headers.has("origin")) {
      return finish(errorResponse(403, "origin_required", { message: ORIGIN_REQUIRED_MESSAGE }), SKIPPED);
    }
    const verdict = skip ? SKIPPED : checkOrigin(request, resolved.allowedOrigins);
    if (verdict.kind === "rejected") return finish(rejectOrigin(verdict), verdict);
    return finish(await runSafely(responses, request, {}, "/responses (proxyFetch)"), verdict);
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
    checkStore,
    agentVoiceState: async () => (appServer ? appServer.state() : "off"),
    agentVoiceLimits: async () => (appServer ? appServer.limits() : null),
    async getSession(request) {
      const state = toPublicState((await manager.readOwn(request))?.record ?? null, resolved.now());
      return withSignInChoices(state, signInChoices(request, resolved));
    },
    dangerouslyGetTokens: createTokenExport(ctx, manager),
    close: async () => {
      await appServer?.close();
    },
  };
}
