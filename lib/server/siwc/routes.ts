import "server-only";
import type { ServerContext } from "../context";
import type { RouteDefinition, RouteHandler } from "../http/router";
import type { SessionManager } from "../session/manager";
import { createCallbackRoute } from "./callback";
import { createNoticeRoute } from "./notice";
import { createStartRoute } from "./start";

/**
 * The SIWC routes below the API's base path (`/siwc/start` always, so a server without SIWC says
 * so; `/siwc/notice` only with SIWC on), and the callback at the app's root (undefined when off).
 */
export function createSiwcRoutes(ctx: ServerContext, manager: SessionManager): { routes: RouteDefinition[]; callback?: RouteHandler } {
  const start: RouteDefinition = { pattern: "/siwc/start", methods: { GET: createStartRoute(ctx, ctx.siwc) } };
  if (!ctx.siwc) return { routes: [start] };
  return {
    routes: [start, { pattern: "/siwc/notice", methods: { POST: createNoticeRoute(ctx, manager, ctx.siwc) } }],
    callback: createCallbackRoute(ctx, manager, ctx.siwc),
  };
}
