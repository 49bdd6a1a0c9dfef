import "server-only";
import { isProviderAuthError, isRefreshTokenInvalid } from "@/lib/upstream/errors";
import { postRealtimeCall, TRANSPORT_VOICE_MODE, type RealtimeCallRequest, type WebRealtimeTransport } from "@/lib/upstream/realtime";
import type { BackendAuth } from "@/lib/upstream/types";
import type { ServerContext } from "../context";
import { ApiError, errorResponse } from "../http/api-error";
import { NO_STORE } from "../http/json";
import { describeErrorForLog, LOG_PREFIX } from "@/lib/logger";
import { readRealtimeBody, realtimeInputTexts } from "./body";
import { limitVoiceCalls } from "./limit";
import { networkRealtimeFailure, notSdpRealtimeFailure, upstreamRealtimeFailure } from "./failure";
import type { RouteHandler } from "../http/router";
import { isAuthenticated, type AuthenticatedRecord, type LoadedSession } from "../session/record";
import type { SessionManager } from "../session/manager";
import { requireCapability } from "../session/capabilities";

const authOf = (record: AuthenticatedRecord): BackendAuth => ({
  accessToken: record.tokens.accessToken,
  accountId: record.account.accountId,
});

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && (error.name === "AbortError" || error.name === "TimeoutError");
}

/**
 * POST /realtime: exchange the browser's WebRTC offer for the provider's answer SDP.
 * Checks, in order (Origin is checked by the handler before this): session (401), a session that
 * may use voice (capability `voice`; else 403 `not_available_with_siwc`), body size (413),
 * shape (400), transport, voice mode and voice model policy (403), the voice throttle shared with
 * agent-voice starts (429), the web transports' credential; then fresh
 * tokens (refresh if near expiry, single-flight) and the upstream call. An upstream 401 to the
 * login's own token gets one forced refresh and one retry.
 */
export function createRealtimeRoute(ctx: ServerContext, manager: SessionManager): RouteHandler {
  const { options } = ctx;
  const realtime = options.realtime;

  /** The credential of a web transport from `realtime.getAuth`: auth, null (use the login's), or a refusal. */
  async function webAuth(
    request: Request,
    transport: WebRealtimeTransport,
    session: LoadedSession<AuthenticatedRecord>,
  ): Promise<BackendAuth | null | Response> {
    if (!realtime.getAuth) {
      if (transport !== "wm") return null;
      return errorResponse("realtime_auth_not_configured", {
        transport,
        message: "The wm transport needs the ChatGPT web session's credential, and this server has no realtime.getAuth.",
      });
    }
    let supplied: BackendAuth | null;
    try {
      supplied = await realtime.getAuth({ request, transport, account: session.record.account });
    } catch (error) {
      options.logger.error(`${LOG_PREFIX} realtime.getAuth failed: ${describeErrorForLog(error)}`);
      return errorResponse("realtime_request_failed", { status: 502, detail: "The server could not get a credential for this voice call." });
    }
    if (supplied || transport !== "wm") return supplied;
    return errorResponse("realtime_auth_unavailable", {
      transport,
      message: "No ChatGPT web session credential is available for this user, and the wm transport needs one.",
    });
  }

  async function freshRecord(session: LoadedSession<AuthenticatedRecord>): Promise<AuthenticatedRecord | Response> {
    try {
      return await manager.freshTokens(session);
    } catch (error) {
      if (isRefreshTokenInvalid(error)) return errorResponse("not_authenticated");
      if (!isProviderAuthError(error)) throw error;
      // The refresh already wrote its own log line.
      return errorResponse("realtime_request_failed", { status: 502, detail: error.message });
    }
  }

  /** After the provider answered 401 to the login's own token: one forced refresh (single-flight). */
  async function refreshedAuth(session: LoadedSession<AuthenticatedRecord>): Promise<BackendAuth | Response> {
    try {
      return authOf(await manager.forceRefresh(session));
    } catch (error) {
      if (isRefreshTokenInvalid(error)) return errorResponse("not_authenticated");
      if (!isProviderAuthError(error)) throw error;
      return errorResponse("realtime_request_failed", { status: 502, detail: error.message });
    }
  }

  async function exchange(
    request: Request,
    offer: RealtimeCallRequest,
    auth: BackendAuth,
    retryWithRefresh: LoadedSession<AuthenticatedRecord> | undefined,
  ): Promise<Response> {
    const { transport } = offer;
    const post = (credential: BackendAuth) =>
      postRealtimeCall(options.upstream, credential, offer, {
        chatgptUrl: realtime.chatgptUrl,
        codexModel: realtime.model,
        signal: request.signal,
      });
    let result;
    try {
      result = await post(auth);
      if (result.kind === "failed" && result.status === 401 && retryWithRefresh) {
        const fresh = await refreshedAuth(retryWithRefresh);
        if (fresh instanceof Response) return fresh;
        result = await post(fresh);
      }
    } catch (error) {
      // 499: the client went away; nobody reads this reply.
      if (isAbort(error) && request.signal.aborted) return new Response(null, { status: 499 });
      if (!isProviderAuthError(error)) throw error;
      return networkRealtimeFailure(options.logger, transport, error);
    }
    if (result.kind === "answer") {
      return new Response(result.sdp, { status: 201, headers: { "content-type": "application/sdp", "cache-control": NO_STORE } });
    }
    if (result.kind === "not_sdp") return notSdpRealtimeFailure(options.logger, transport, result, realtimeInputTexts(offer));
    return upstreamRealtimeFailure(options.logger, transport, result, realtimeInputTexts(offer));
  }

  return async (request) => {
    const session = await manager.read(request);
    if (!isAuthenticated(session)) throw new ApiError("not_authenticated");
    // A session without voice (a SIWC one: plan usage covers text replies only): refused before the body is read.
    requireCapability(session.record, "voice");
    const body = await readRealtimeBody(request, realtime.maxRequestBytes);
    if (!body.ok) return body.response;
    const { transport } = body.call;

    if (!realtime.transports.has(transport)) throw new ApiError("realtime_transport_not_allowed", { transport });
    const voiceMode = body.call.voiceMode ?? (transport === "codex" ? undefined : TRANSPORT_VOICE_MODE[transport]);
    if (voiceMode !== undefined && !realtime.voiceModes.has(voiceMode)) {
      throw new ApiError("realtime_mode_not_allowed", { voiceMode });
    }
    const { model } = body.call;
    if (model !== undefined && realtime.allowedModels && !realtime.allowedModels.has(model)) {
      throw new ApiError("realtime_model_not_allowed", { model });
    }
    await limitVoiceCalls(ctx, session.record.loginId);

    const supplied = transport === "codex" ? null : await webAuth(request, transport, session);
    if (supplied instanceof Response) return supplied;
    if (supplied) return exchange(request, body.call, supplied, undefined);
    const record = await freshRecord(session);
    if (record instanceof Response) return record;
    // The login's own token: a 401 gets one forced refresh and one retry, as on /responses.
    return exchange(request, body.call, authOf(record), { id: session.id, record });
  };
}
