import "server-only";
import { pickUsageHeaders } from "@/lib/upstream/backend";
import { readBoundedText } from "@/lib/upstream/http";
import { isProviderAuthError, isRefreshTokenInvalid } from "@/lib/upstream/errors";
import {
  hasWebSearchTool,
  isResponsesLiteRejection,
  isServiceTierRejection,
  normalizeResponsesBody,
  postResponses,
  toResponsesLite,
  withoutServiceTier,
} from "@/lib/upstream/responses";
import type { ModelInfo } from "@/lib/upstream/types";
import { isSiwcRefusal } from "@/lib/upstream/siwc-errors";
import { prepareSiwcResponsesBody } from "@/lib/upstream/siwc-responses";
import { cachedAccountModels, modelsCacheKey, type AccountModelsCache } from "../models/account-models";
import { assembleResponse, type AssembledResponse } from "../models/assemble-response";
import type { ServerContext } from "../context";
import { withEffortForModel } from "./effort-for-model";
import { ApiError, errorResponse, rateLimited } from "../http/api-error";
import { responsesInputTexts } from "../models/input-texts";
import { LOG_PREFIX, type Logger } from "@/lib/logger";
import { readResponsesBody } from "./body";
import { createResponsesDialect, LITE_REFUSAL_MEMORY_MS } from "../models/responses-dialect";
import { readProxyHeaders, SERVICE_TIER_FALLBACK_HEADER } from "./headers";
import type { RouteHandler } from "../http/router";
import { isAuthenticated, type AuthenticatedRecord, type LoadedSession } from "../session/record";
import type { SessionManager } from "../session/manager";
import { isEventStream, unexpectedContentTypeResponse, upstreamFailureResponse } from "../models/upstream-failure";
import { describeProviderErrorForLog } from "../http/upstream-log";
import { guardUpstreamStream } from "../models/upstream-stream";
import { callSiwcResponses, isSiwcRecord, siwcFailureResponse, siwcGate, siwcGateAfterRefresh } from "../models/siwc-backend";

/** Refresh or model-list trouble before the model call, in the /responses error shape. */
function preflightFailure(error: unknown): Response {
  if (isRefreshTokenInvalid(error)) return errorResponse("not_authenticated");
  if (isSiwcRefusal(error)) return siwcFailureResponse(error.failure);
  if (!isProviderAuthError(error)) throw error;
  const status =
    error.code === "models_request_failed" && error.status !== undefined && error.status >= 400 ? error.status : 502;
  return errorResponse("responses_request_failed", { status, detail: error.message }, { status });
}

/**
 * A `stream: false` request (what the AI SDK's generateText and generateObject send): the backend
 * only streams, so the reply is read to its final event and answered as one JSON response object.
 */
async function oneJsonReply(
  stream: ReadableStream<Uint8Array> | null,
  signal: AbortSignal,
  headers: Record<string, string>,
  logger: Logger,
): Promise<Response> {
  const assembled: AssembledResponse = stream ? await assembleResponse(stream, signal) : { kind: "failed", detail: "The model's reply was empty." };
  if (assembled.kind === "aborted") return new Response(null, { status: 499 });
  if (assembled.kind === "failed") {
    logger.warn(`${LOG_PREFIX} upstream /responses reply could not be assembled into JSON${assembled.code ? `: ${assembled.code}` : ""}`);
    return errorResponse("responses_request_failed", { status: 502, detail: assembled.detail });
  }
  headers["content-type"] = "application/json; charset=utf-8";
  return new Response(JSON.stringify(assembled.response), { status: 200, headers });
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && (error.name === "AbortError" || error.name === "TimeoutError");
}

/**
 * POST /responses. Checks, in order: session (401), for a SIWC session SIWC on and plan usage granted
 * (403), headers (400), body size (413), body shape (400), web search turned off (403); for a SIWC
 * session image generation (403 `not_available_with_siwc`), the fields its backend refuses (400
 * `unsupported_field`) and plan usage again on the record a refresh near expiry leaves (403); allowed
 * model (403), per-session rate limit (429); then refresh if near expiry. A SIWC session then goes
 * to its own API (./siwc-proxy.ts, no retries). Otherwise normalise, put the body in the "responses
 * lite" dialect when the model's catalogue entry asks for it (./responses-dialect.ts), and
 * stream the upstream reply through unbuffered (`stream: true`) or answer it as one JSON object
 * (`stream` absent or false). Upstream 401 → one forced refresh and retry; a rejected service tier →
 * one retry without it; a refused lite shape → one retry in the plain shape, remembered for the model.
 */
export function createResponsesRoute(
  ctx: ServerContext,
  manager: SessionManager,
  cache: AccountModelsCache,
): RouteHandler {
  const { options } = ctx;
  const dialect = createResponsesDialect(options.now);

  /**
   * The model's catalogue entry when the account lists it (undefined: not listed). With an
   * allow-list the model is allowed by it alone: `allowed` answers, and the entry is read for the
   * dialect only, when the catalogue can be had.
   */
  async function modelEntry(session: LoadedSession<AuthenticatedRecord>, model: string): Promise<{ allowed: boolean; entry?: ModelInfo }> {
    const find = (models: ModelInfo[]) => models.find((listed) => listed.slug === model);
    if (!options.allowedModels) {
      const entry = find(await cachedAccountModels(ctx, manager, cache, session));
      return { allowed: entry !== undefined, entry };
    }
    if (!options.allowedModels.has(model)) return { allowed: false };
    try {
      return { allowed: true, entry: find(await cachedAccountModels(ctx, manager, cache, session)) };
    } catch {
      return { allowed: true };
    }
  }

  return async (request) => {
    const session = await manager.read(request);
    if (!isAuthenticated(session)) throw new ApiError("not_authenticated");
    // A SIWC session: SIWC still on and plan usage granted, before anything is read or asked upstream.
    const siwc = isSiwcRecord(session.record) ? siwcGate(ctx, session.record) : undefined;
    const headers = readProxyHeaders(request);
    const body = await readResponsesBody(request, options.maxRequestBytes);
    if (!body.ok) return body.response;
    const model = body.body.model;
    if (!options.webSearch && hasWebSearchTool(body.body)) throw new ApiError("web_search_disabled");
    // What the SIWC backend would refuse is refused here, naming the field, and never sent.
    const siwcBody = siwc
      ? prepareSiwcResponsesBody(body.body, {
          ...(headers.serviceTier ? { serviceTier: headers.serviceTier } : {}),
          ...(headers.reasoningEffort ? { reasoningEffort: headers.reasoningEffort } : {}),
          ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
          instructionsMode: options.instructionsMode,
        })
      : undefined;
    if (siwcBody && !siwcBody.ok) {
      const { code, param, message } = siwcBody.refusal;
      // Image generation is a feature SIWC lacks (403, like voice); anything else is a field to leave out (400).
      if (code === "not_available_with_siwc") throw new ApiError(code, { message });
      throw new ApiError(code, { param, message });
    }

    // A SIWC session: a refresh may bring back a narrower grant, so the record the upstream calls go
    // with (the model list's too) is refreshed first when near expiry and must still grant plan usage.
    let current = session;
    if (siwc) {
      try {
        current = { id: session.id, record: await manager.freshTokens(session) };
      } catch (error) {
        return preflightFailure(error);
      }
      siwcGateAfterRefresh(ctx, current.record);
    }

    let entry: ModelInfo | undefined;
    try {
      const listed = await modelEntry(current, model);
      if (!listed.allowed) return errorResponse("model_not_allowed", { model });
      entry = listed.entry;
    } catch (error) {
      return preflightFailure(error);
    }

    if (ctx.responsesLimiter) {
      const limit = await ctx.responsesLimiter.limit(session.record.loginId);
      if (!limit.success) throw rateLimited(limit.reset, options.now());
    }

    let record: AuthenticatedRecord;
    try {
      record = await manager.freshTokens(current);
    } catch (error) {
      return preflightFailure(error);
    }

    if (siwc) {
      if (!siwcBody?.ok) throw new Error("a SIWC body was not prepared");
      // The record this call goes with, gated again should it have been refreshed once more.
      const gate = siwcGateAfterRefresh(ctx, record);
      const payload = await withEffortForModel(siwcBody.body, () => cachedAccountModels(ctx, manager, cache, current));
      return callSiwcResponses(ctx, request, {
        record: gate.record,
        apiBase: gate.apiBase,
        payload,
        original: body.body,
        onModelRefused: () => cache.forget(modelsCacheKey(gate.record)),
      });
    }

    const asked = normalizeResponsesBody(body.body, {
      ...(headers.serviceTier ? { serviceTier: headers.serviceTier } : {}),
      ...(headers.reasoningEffort ? { reasoningEffort: headers.reasoningEffort } : {}),
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
      instructionsMode: options.instructionsMode,
    });
    const normalized = await withEffortForModel(asked, () => cachedAccountModels(ctx, manager, cache, session));
    // What goes upstream: each retry below turns one of these off, once.
    let lite = dialect.speaksLite(entry, normalized);
    let withTier = "service_tier" in normalized;
    const post = (tokens: AuthenticatedRecord) => {
      const shaped = lite ? toResponsesLite(normalized) : normalized;
      return postResponses(
        options.upstream,
        { accessToken: tokens.tokens.accessToken, accountId: tokens.account.accountId },
        withTier ? shaped : withoutServiceTier(shaped),
        { signal: request.signal, lite },
      );
    };

    try {
      let upstream = await post(record);
      if (upstream.status === 401) {
        await upstream.body?.cancel().catch(() => undefined);
        try {
          record = await manager.forceRefresh({ id: session.id, record });
        } catch (error) {
          return preflightFailure(error);
        }
        upstream = await post(record);
      }

      let tierFellBack = false;
      let liteRefused = false;
      while (upstream.status === 400 && (withTier || lite)) {
        const text = await readBoundedText(upstream);
        if (withTier && isServiceTierRejection(upstream.status, text)) {
          withTier = false;
          tierFellBack = true;
        } else if (lite && isResponsesLiteRejection(upstream.status, text)) {
          lite = false;
          liteRefused = true;
        } else {
          return upstreamFailureResponse(options.logger, upstream, text, responsesInputTexts(body.body));
        }
        upstream = await post(record);
      }
      if (liteRefused && upstream.ok) {
        dialect.rememberRefusal(model);
        options.logger.warn(
          `${LOG_PREFIX} upstream refused the responses lite dialect for ${model} and took the plain one; ` +
            `this instance sends ${model} the plain shape for the next ${LITE_REFUSAL_MEMORY_MS / 60_000} minutes`,
        );
      }
      if (!upstream.ok) {
        const text = await readBoundedText(upstream);
        return upstreamFailureResponse(options.logger, upstream, text, responsesInputTexts(body.body));
      }
      if (!isEventStream(upstream.headers.get("content-type"))) {
        await upstream.body?.cancel().catch(() => undefined);
        return unexpectedContentTypeResponse(options.logger, upstream);
      }

      // A plain record: the Response builds its one Headers list from it. (cache-control: no-store
      // and nosniff are set once, by the handler's finish, on this reply as on every other.)
      const replyHeaders = pickUsageHeaders(upstream.headers);
      replyHeaders["content-type"] = upstream.headers.get("content-type")!;
      if (tierFellBack) replyHeaders[SERVICE_TIER_FALLBACK_HEADER] = "auto";
      // Piped as it arrives: no buffering, and a client abort cancels the upstream request.
      const stream = upstream.body ? guardUpstreamStream(upstream.body, options.logger, request.signal, options.maxStreamMs || undefined) : null;
      if (body.body.stream !== true) return await oneJsonReply(stream, request.signal, replyHeaders, options.logger);
      return new Response(stream, { status: upstream.status, headers: replyHeaders });
    } catch (error) {
      // 499: the client went away; nobody reads this reply.
      if (isAbort(error)) return new Response(null, { status: 499 });
      if (!isProviderAuthError(error)) throw error;
      // The message is a fixed sentence; the upstream address goes to the log line only.
      options.logger.error(`${LOG_PREFIX} upstream /responses failed: ${describeProviderErrorForLog(error)}`);
      return errorResponse("responses_request_failed", { status: 502, detail: error.message });
    }
  };
}
