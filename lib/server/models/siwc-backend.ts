import "server-only";
/**
 * The model backend of a Sign in with ChatGPT session (docs/api.md, spec siwc.md §6-§9): its
 * catalogue and its calls go to the SIWC API with the bearer token only, gated on SIWC being on and
 * on plan usage, without retries of any kind.
 */
import { LOG_PREFIX, type Logger } from "@/lib/logger";
import { isProviderAuthError } from "@/lib/upstream/errors";
import { readBoundedText } from "@/lib/upstream/http";
import { toModelDetails } from "@/lib/upstream/models";
import { classifySiwcHttpFailure, siwcRequestId, type SiwcFailure } from "@/lib/upstream/siwc-errors";
import { fetchSiwcModels } from "@/lib/upstream/siwc-models";
import { postSiwcResponses, prepareSiwcResponsesBody } from "@/lib/upstream/siwc-responses";
import { watchSiwcStream, type SiwcStreamEnd } from "@/lib/upstream/siwc-stream";
import type { ServerContext } from "../context";
import { ApiError, errorResponse } from "../http/api-error";
import { jsonResponse } from "../http/json";
import { bodyForLog, describeProviderErrorForLog } from "../http/upstream-log";
import type { SessionManager } from "../session/manager";
import type { AuthenticatedRecord, LoadedSession } from "../session/record";
import type { AccountModelsCache } from "./account-models";
import { assembleResponse } from "./assemble-response";
import type { ModelBackend, ResponsesCall } from "./backend";
import { responsesInputTexts } from "./input-texts";
import { isEventStream, siwcFailureResponse, unexpectedContentTypeResponse } from "./upstream-failure";
import { guardUpstreamStream, STREAM_INTERRUPTED_CODE } from "./upstream-stream";

type SiwcRecord = AuthenticatedRecord & { siwc: NonNullable<AuthenticatedRecord["siwc"]> };

const SIWC_OFF_MESSAGE = "Sign in with ChatGPT is turned off on this server. Sign out and sign in another way.";

/** One log line for a refusal: never the backend's words beyond the bounded snippet, never the prompt. */
function logFailure(logger: Logger, failure: SiwcFailure, bodyText: string, inputs: readonly string[]): void {
  const parts = [`code=${failure.code}`, `status=${failure.status}`];
  if (failure.upstreamCode) parts.push(`upstream_code=${failure.upstreamCode}`);
  if (failure.requestId) parts.push(`upstream_request_id=${failure.requestId}`);
  logger.error(`${LOG_PREFIX} upstream /responses (siwc) failed: ${parts.join(" ")}${bodyForLog(bodyText, inputs)}`);
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && (error.name === "AbortError" || error.name === "TimeoutError");
}

function describeEnd(end: SiwcStreamEnd): string {
  if (end.kind === "failed") {
    const upstream = end.failure.upstreamCode ? ` upstream_code=${end.failure.upstreamCode}` : "";
    return `failed: code=${end.failure.code}${upstream}`;
  }
  return end.kind === "interrupted" ? `interrupted: ${end.reason}` : "interrupted: connection";
}

interface SiwcCall {
  request: Request;
  record: SiwcRecord;
  apiBase: string;
  /** The prepared body (lib/upstream/siwc-responses.ts). */
  payload: Record<string, unknown> & { model: string };
  /** The body as the client sent it: its texts are replaced by `[input]` in snippets; `stream` picks the reply. */
  original: Record<string, unknown>;
  /** A refused model: the account's cached list is dropped so the next one is fresh. */
  onModelRefused: () => void;
}

/**
 * POST {apiBase}/responses for a SIWC session and the reply: the stream piped through as it arrives
 * (a reply that does not end in `response.completed` ends in an `error` event of ours), or one JSON
 * response for a client that did not ask for a stream. No retry of any kind: a plan error stops here.
 */
async function callSiwcResponses(ctx: ServerContext, call: SiwcCall): Promise<Response> {
  const { options } = ctx;
  const { request } = call;
  const { logger } = options;
  const inputs = responsesInputTexts(call.original);
  const model = call.payload.model;
  let upstream: Response;
  try {
    upstream = await postSiwcResponses(options.upstream, call.apiBase, call.record.tokens.accessToken, call.payload, { signal: request.signal });
  } catch (error) {
    if (isAbort(error)) return new Response(null, { status: 499 });
    if (!isProviderAuthError(error)) throw error;
    logger.error(`${LOG_PREFIX} upstream /responses (siwc) failed: ${describeProviderErrorForLog(error)}`);
    return errorResponse("responses_request_failed", { status: 502, detail: error.message });
  }

  if (!upstream.ok) {
    // A redirect is never followed; it is reported like a failure without a body.
    const redirect = upstream.status < 400;
    const text = redirect ? "" : await readBoundedText(upstream);
    if (redirect) await upstream.body?.cancel().catch(() => undefined);
    const failure = classifySiwcHttpFailure(redirect ? 502 : upstream.status, text, upstream.headers, { route: "responses", model, inputs });
    logFailure(logger, failure, text, inputs);
    if (failure.code === "model_not_supported") call.onModelRefused();
    return siwcFailureResponse(failure);
  }
  // The direct route may leave out the content type (spec §7); another type than SSE is refused.
  const contentType = upstream.headers.get("content-type");
  if (contentType !== null && !isEventStream(contentType)) {
    await upstream.body?.cancel().catch(() => undefined);
    return unexpectedContentTypeResponse(logger, upstream);
  }
  if (!upstream.body) return errorResponse("responses_request_failed", { status: 502, detail: "The model's reply was empty." });

  const requestId = siwcRequestId(upstream.headers);
  let end: SiwcStreamEnd | undefined;
  const guarded = guardUpstreamStream(upstream.body, logger, request.signal, options.maxStreamMs || undefined);
  const stream = watchSiwcStream(guarded, {
    interruptedCode: STREAM_INTERRUPTED_CODE,
    model,
    ...(requestId !== undefined ? { requestId } : {}),
    onEnd: (ended) => {
      end = ended;
      const id = requestId ? ` upstream_request_id=${requestId}` : "";
      logger.warn(`${LOG_PREFIX} upstream /responses (siwc) reply ${describeEnd(ended)}${id}`);
      if (ended.kind === "failed" && ended.failure.code === "model_not_supported") call.onModelRefused();
    },
  });
  if (call.original.stream === true) {
    return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8" } });
  }

  // One JSON reply: read to the end; a reply that did not complete is an error in our words.
  const assembled = await assembleResponse(stream, request.signal);
  if (assembled.kind === "aborted") return new Response(null, { status: 499 });
  const ended = end as SiwcStreamEnd | undefined;
  if (ended?.kind === "failed") return siwcFailureResponse(ended.failure);
  if (assembled.kind === "failed" || ended !== undefined) {
    const detail = ended ? ended.message : assembled.kind === "failed" ? assembled.detail : "The model's reply failed.";
    return errorResponse("responses_request_failed", {
      status: 502,
      detail,
      ...(requestId !== undefined ? { upstreamRequestId: requestId } : {}),
    });
  }
  return jsonResponse(assembled.response);
}

/**
 * The SIWC session's record, for the API base it may use now: SIWC still on (`siwc_disabled` once
 * it was turned off since the sign-in) and plan usage granted by the token response's scopes
 * (`plan_usage_not_granted`), on the record as it is, so also after a refresh that granted less.
 */
function admitted(ctx: ServerContext, record: AuthenticatedRecord, extra: Record<string, unknown> = {}): { apiBase: string; record: SiwcRecord } {
  if (record.siwc === undefined) throw new Error("a SIWC session's record lost its siwc part");
  const apiBase = ctx.options.signIn.siwc?.apiBase;
  if (apiBase === undefined) throw new ApiError("siwc_disabled", { ...extra, message: SIWC_OFF_MESSAGE });
  if (!record.siwc.planUsage) throw new ApiError("plan_usage_not_granted", extra);
  return { apiBase, record: record as SiwcRecord };
}

export function createSiwcBackend(ctx: ServerContext, manager: SessionManager, cache: AccountModelsCache): ModelBackend {
  const { options } = ctx;
  const catalogueKey = (record: AuthenticatedRecord) => `siwc:${record.account.accountId}`;

  return {
    admit(record, extra) {
      admitted(ctx, record, extra);
    },
    // Its account id is the ID token's `sub`, and its catalogue is another service's: kept apart.
    catalogueKey,
    /** {apiBase}/models with the bearer token only. A 401 is not read as an expired token (spec: check the account and scopes): no forced refresh. */
    async fetchCatalogue(session: LoadedSession<AuthenticatedRecord>, refreshed?: AuthenticatedRecord) {
      const { apiBase, record } = admitted(ctx, refreshed ?? (await manager.freshTokens(session)));
      try {
        return await fetchSiwcModels(options.upstream, apiBase, record.tokens.accessToken);
      } catch (error) {
        if (isProviderAuthError(error)) options.logger.error(`${LOG_PREFIX} upstream /models failed: ${describeProviderErrorForLog(error)}`);
        throw error;
      }
    },
    /** Not gated on a client version (none is sent to it): nothing is marked `unavailable`. */
    describe(model, clientVersion) {
      const details = toModelDetails(model, clientVersion);
      delete details.unavailable;
      return details;
    },
    /** What the API would refuse is refused here, naming the field (400 `unsupported_field`), and never sent. */
    prepare(body, settings) {
      const prepared = prepareSiwcResponsesBody(body, settings);
      if (prepared.ok) return prepared.body;
      const { code, param, message } = prepared.refusal;
      // Image generation is a feature SIWC lacks (403, like voice); anything else is a field to leave out.
      throw new ApiError(code, code === "not_available_with_siwc" ? { message } : { param, message });
    },
    /** A refresh may bring back a narrower grant: the record the calls (the catalogue's too) go with is refreshed first and admitted again. */
    async ready(session) {
      const record = await manager.freshTokens(session);
      admitted(ctx, record);
      return { id: session.id, record };
    },
    respond({ request, record, payload, original }: ResponsesCall) {
      // The record this call goes with, admitted again should it have been refreshed once more.
      const gate = admitted(ctx, record);
      return callSiwcResponses(ctx, {
        request,
        ...gate,
        payload,
        original,
        onModelRefused: () => cache.forget(catalogueKey(gate.record)),
      });
    },
  };
}
