import { createRateLimiter } from "@/lib/stores/rate-limit";
import { createAccountModelsCache } from "./account-models";
import type { ServerContext } from "./context";
import { createCookieSigner } from "./cookies";
import { applyCorsHeaders, applyPreflightHeaders, checkOrigin, type OriginVerdict } from "./csrf";
import { ensureNoStore, errorResponse, textResponse } from "./json";
import { describeErrorForLog, LOG_PREFIX } from "./logger";
import { resolveOptions, type ProviderHandlerOptions } from "./options";
import type { PublicSessionState } from "./public-state";
import { toPublicState } from "./public-state";
import { createRefreshCoordinator } from "./refresh";
import { createRouter, type RouteDefinition, type RouteHandler } from "./router";
import { createLoginRoutes } from "./routes/login";
import { createModelsRoute } from "./routes/models";
import { createAppServerRoutes } from "./routes/realtime-app-server";
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
  /** POST /responses for the request's session (cookie and body from `request`), whatever its URL. */
  proxyFetch(request: Request): Promise<Response>;
  /** The public state of the request's session. Never polls, refreshes or writes. */
  getSession(request: Request): Promise<PublicSessionState>;
  dangerouslyGetTokens(request: Request, options?: { includeRefreshToken?: boolean }): Promise<ExportedTokens>;
}

export const LOGIN_RATE_LIMIT_PREFIX = "lwc:rl:login";
export const LOGIN_GLOBAL_RATE_LIMIT_PREFIX = "lwc:rl:login-all";
export const RESPONSES_RATE_LIMIT_PREFIX = "lwc:rl:responses";

function isStoreUnavailable(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === "store_unavailable";
}

export function createProviderHandler(options: ProviderHandlerOptions = {}): ProviderHandler {
  const resolved = resolveOptions(options);
  const { store, logger } = resolved;
  const sessions = createSessionStore(store, createSealer(resolved.secrets), resolved.now);
  const ctx: ServerContext = {
    options: resolved,
    sessions,
    signer: createCookieSigner(resolved.secrets),
    refresher: createRefreshCoordinator({ store, sessions, upstream: resolved.upstream, now: resolved.now }),
    loginLimiter: resolved.loginRateLimit
      ? createRateLimiter(store, { prefix: LOGIN_RATE_LIMIT_PREFIX, ...resolved.loginRateLimit })
      : undefined,
    loginGlobalLimiter: resolved.loginGlobalRateLimit
      ? createRateLimiter(store, { prefix: LOGIN_GLOBAL_RATE_LIMIT_PREFIX, ...resolved.loginGlobalRateLimit })
      : undefined,
    responsesLimiter: resolved.responsesRateLimit
      ? createRateLimiter(store, { prefix: RESPONSES_RATE_LIMIT_PREFIX, ...resolved.responsesRateLimit })
      : undefined,
  };
  const manager = createSessionManager(ctx);
  const modelsCache = createAccountModelsCache(resolved.now);
  const login = createLoginRoutes(ctx, manager);
  const responses = createResponsesRoute(ctx, manager, modelsCache);
  const appServer = resolved.appServer ? createAppServerRoutes(ctx, manager, modelsCache, resolved.appServer) : undefined;
  // Logout also ends the login's live agent-voice session.
  const logout: RouteHandler = async (request, params) => {
    const loginId = (await manager.read(request))?.record.loginId;
    const response = await login.logout(request, params);
    if (appServer && loginId !== undefined) await appServer.closeForLogin(loginId);
    return response;
  };

  // The realtime routes join this table later (patterns with `:id` segments are supported).
  const routes: RouteDefinition[] = [
    { pattern: "/login", methods: { POST: login.login } },
    { pattern: "/status", methods: { GET: login.status } },
    { pattern: "/session", methods: { GET: login.session } },
    { pattern: "/logout", methods: { POST: logout } },
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
    if (verdict.kind === "allowed-cross-origin") applyCorsHeaders(final.headers, verdict.origin);
    return final;
  }

  function rejectOrigin(verdict: Extract<OriginVerdict, { kind: "rejected" }>): Response {
    return errorResponse(403, "origin_not_allowed", { origin: verdict.origin });
  }

  async function handler(request: Request): Promise<Response> {
    const match = router.match(request);
    if (match.kind === "not_found") return textResponse("Not Found", 404);
    const verdict = checkOrigin(request, resolved.allowedOrigins);
    const method = request.method.toUpperCase();

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

  async function proxyFetch(request: Request): Promise<Response> {
    if (!resolved.enableResponsesProxy) return textResponse("Not Found", 404);
    const verdict = checkOrigin(request, resolved.allowedOrigins);
    if (verdict.kind === "rejected") return finish(rejectOrigin(verdict), verdict);
    return finish(await runSafely(responses, request, {}, "/responses (proxyFetch)"), verdict);
  }

  return {
    basePath: resolved.basePath,
    handler,
    proxyFetch,
    async getSession(request) {
      return toPublicState((await manager.read(request))?.record ?? null, resolved.now());
    },
    dangerouslyGetTokens: createTokenExport(ctx, manager),
  };
}
