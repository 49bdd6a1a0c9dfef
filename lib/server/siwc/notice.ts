import "server-only";
import type { ServerContext } from "../context";
import { errorResponse } from "../json";
import type { RouteHandler } from "../router";
import type { SessionManager } from "../session-manager";
import type { SiwcClient } from "./client";

const SAVE_TRIES = 3;

/**
 * POST {api}/siwc/notice: the one-time plan notice was seen. Remembered per account (issuer and
 * `sub`) on the server, so no later sign-in of that account shows it; the session's own flag is
 * cleared too. 204; 401 `not_authenticated` without a SIWC session.
 */
export function createNoticeRoute(ctx: ServerContext, manager: SessionManager, siwc: SiwcClient): RouteHandler {
  return async (request) => {
    let session = await manager.read(request);
    if (session?.record.state !== "authenticated" || !session.record.siwc) return errorResponse(401, "not_authenticated");
    await siwc.store.markNoticeSeen(siwc.options.issuer, session.record.siwc.subject);
    // Written over the record read (a refresh may rotate it meanwhile: then read again and retry).
    for (let attempt = 0; attempt < SAVE_TRIES && session?.record.state === "authenticated" && session.record.siwc?.planNotice; attempt += 1) {
      const { record, sealed } = session;
      const cleared = { ...record, siwc: { ...record.siwc!, planNotice: false } };
      if (sealed === undefined || (await ctx.sessions.saveIfUnchanged(session.id, sealed, cleared))) break;
      session = await manager.read(request);
    }
    return new Response(null, { status: 204 });
  };
}
