import "server-only";
import type { ServerContext } from "../context";
import { errorResponse } from "../http/api-error";
import type { RouteHandler } from "../http/router";
import type { SessionManager } from "../session/manager";
import type { SiwcClient } from "./client";

/**
 * POST {api}/siwc/notice: the one-time plan notice was seen. Remembered per account (issuer and
 * `sub`) on the server, so no later sign-in of that account shows it; the session's own flag is
 * cleared too. Only a session with plan usage counts (elsewhere nothing is recorded). 204; 401
 * `not_authenticated` without a SIWC session.
 */
export function createNoticeRoute(ctx: ServerContext, manager: SessionManager, siwc: SiwcClient): RouteHandler {
  return async (request) => {
    const session = await manager.read(request);
    if (session?.record.state !== "authenticated" || !session.record.siwc) {
      return errorResponse("not_authenticated", { message: "Sign in with ChatGPT first." });
    }
    // Seen only counts where the notice could be shown: a sign-in with plan usage.
    if (!session.record.siwc.planUsage) return new Response(null, { status: 204 });
    await siwc.store.markNoticeSeen(siwc.options.issuer, session.record.siwc.subject);
    if (!session.record.siwc.planNotice) return new Response(null, { status: 204 });
    // Under the login's refresh lock, so a refresh saving rotated tokens never finds the record
    // changed under it (it would take that for a sign-out and drop the new tokens).
    await ctx.refresher.exclusive(session.record.loginId, async () => {
      const current = await ctx.sessions.loadSealed(session.id);
      if (current?.record.state !== "authenticated" || !current.record.siwc) return;
      const cleared = { ...current.record, siwc: { ...current.record.siwc, planNotice: false } };
      await ctx.sessions.saveIfUnchanged(session.id, current.sealed, cleared);
    });
    return new Response(null, { status: 204 });
  };
}
