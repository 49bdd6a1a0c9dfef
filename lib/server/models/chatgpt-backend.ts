import "server-only";
/**
 * The model backend of a device-code login: ChatGPT's Codex backend (docs/upstream.md), as the
 * Codex CLI reaches it, with one forced refresh after a 401 and the fallbacks the backend asks for.
 */
import { LOG_PREFIX, type Logger } from "@/lib/logger";
import { pickUsageHeaders } from "@/lib/upstream/backend";
import { isProviderAuthError } from "@/lib/upstream/errors";
import { readBoundedText } from "@/lib/upstream/http";
import { fetchModels, toModelDetails } from "@/lib/upstream/models";
import {
  isResponsesLiteRejection,
  isServiceTierRejection,
  normalizeResponsesBody,
  postResponses,
  toResponsesLite,
  withoutServiceTier,
} from "@/lib/upstream/responses";
import type { ModelInfo } from "@/lib/upstream/types";
import type { ServerContext } from "../context";
import { errorResponse } from "../http/api-error";
import { describeProviderErrorForLog } from "../http/upstream-log";
import type { SessionManager } from "../session/manager";
import type { AuthenticatedRecord, LoadedSession } from "../session/record";
import { assembleResponse, type AssembledResponse } from "./assemble-response";
import type { ModelBackend, ResponsesCall } from "./backend";
import { responsesInputTexts } from "./input-texts";
import { createResponsesDialect, LITE_REFUSAL_MEMORY_MS } from "./responses-dialect";
import { isEventStream, preflightFailure, unexpectedContentTypeResponse, upstreamFailureResponse } from "./upstream-failure";
import { guardUpstreamStream } from "./upstream-stream";

/** Set on a reply the backend served only after the proxy dropped the requested service tier. */
const SERVICE_TIER_FALLBACK_HEADER = "x-login-with-provider-service-tier-fallback";

function isUnauthorized(error: unknown): boolean {
  return isProviderAuthError(error) && error.status === 401;
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && (error.name === "AbortError" || error.name === "TimeoutError");
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

export function createChatGptBackend(ctx: ServerContext, manager: SessionManager): ModelBackend {
  const { options } = ctx;
  const dialect = createResponsesDialect(options.now);

  /** One catalogue call; a failure is logged here, once per call (cached replies are not logged again). */
  async function listModels(record: AuthenticatedRecord, retryOn401: boolean): Promise<ModelInfo[]> {
    try {
      return await fetchModels(options.upstream, { accessToken: record.tokens.accessToken, accountId: record.account.accountId });
    } catch (error) {
      if (isProviderAuthError(error) && !(retryOn401 && isUnauthorized(error))) {
        options.logger.error(`${LOG_PREFIX} upstream /models failed: ${describeProviderErrorForLog(error)}`);
      }
      throw error;
    }
  }

  /**
   * Normalised, put in the "responses lite" dialect when the model's catalogue entry asks for it
   * (./responses-dialect.ts), and sent with the login's tokens. Upstream 401 → one forced refresh
   * and retry; a rejected service tier → one retry without it; a refused lite shape → one retry in
   * the plain shape, remembered for the model. The reply streams through unbuffered (`stream:
   * true`) or is answered as one JSON object.
   */
  async function respond({ request, session, payload, original, entry, ...call }: ResponsesCall): Promise<Response> {
    let record = call.record;
    const { model } = payload;
    // What goes upstream: each retry below turns one of these off, once.
    let lite = dialect.speaksLite(entry, payload);
    let withTier = "service_tier" in payload;
    const post = (tokens: AuthenticatedRecord) => {
      const shaped = lite ? toResponsesLite(payload) : payload;
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
          return upstreamFailureResponse(options.logger, upstream, text, responsesInputTexts(original));
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
        return upstreamFailureResponse(options.logger, upstream, text, responsesInputTexts(original));
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
      if (original.stream !== true) return await oneJsonReply(stream, request.signal, replyHeaders, options.logger);
      return new Response(stream, { status: upstream.status, headers: replyHeaders });
    } catch (error) {
      // 499: the client went away; nobody reads this reply.
      if (isAbort(error)) return new Response(null, { status: 499 });
      if (!isProviderAuthError(error)) throw error;
      // The message is a fixed sentence; the upstream address goes to the log line only.
      options.logger.error(`${LOG_PREFIX} upstream /responses failed: ${describeProviderErrorForLog(error)}`);
      return errorResponse("responses_request_failed", { status: 502, detail: error.message });
    }
  }

  return {
    // A device-code login may always reach its backend.
    admit: () => undefined,
    catalogueKey: (record) => record.account.accountId,
    /** Tokens refreshed first (unless the caller just did), and one forced refresh and retry after a 401. */
    async fetchCatalogue(session: LoadedSession<AuthenticatedRecord>, refreshed?: AuthenticatedRecord) {
      const record = refreshed ?? (await manager.freshTokens(session));
      try {
        return await listModels(record, true);
      } catch (error) {
        if (!isUnauthorized(error)) throw error;
        return listModels(await manager.forceRefresh({ id: session.id, record }), false);
      }
    },
    describe: toModelDetails,
    prepare: (body, settings) => normalizeResponsesBody(body, settings),
    // The model check reads the cached catalogue; tokens are refreshed after the rate limit.
    ready: async (session) => session,
    respond,
  };
}
