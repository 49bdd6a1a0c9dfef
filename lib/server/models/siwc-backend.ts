import "server-only";
/**
 * The model side of a Sign in with ChatGPT session (docs/api.md, spec siwc.md §6-§9): what /models,
 * /responses and the voice routes do differently when the session record carries `siwc`.
 */
import { isProviderAuthError } from "@/lib/upstream/errors";
import { readBoundedText } from "@/lib/upstream/http";
import { classifySiwcHttpFailure, siwcRequestId, type SiwcFailure } from "@/lib/upstream/siwc-errors";
import { postSiwcResponses } from "@/lib/upstream/siwc-responses";
import { watchSiwcStream, type SiwcStreamEnd } from "@/lib/upstream/siwc-stream";
import { assembleResponse } from "./assemble-response";
import type { ServerContext } from "../context";
import { ApiError, errorResponse } from "../http/api-error";
import { jsonResponse } from "../http/json";
import { responsesInputTexts } from "./input-texts";
import { LOG_PREFIX, type Logger } from "@/lib/logger";
import type { AuthenticatedRecord } from "../session/record";
import { unexpectedContentTypeResponse, isEventStream } from "./upstream-failure";
import { describeProviderErrorForLog, bodyForLog } from "../http/upstream-log";
import { guardUpstreamStream, STREAM_INTERRUPTED_CODE } from "./upstream-stream";

type SiwcRecord = AuthenticatedRecord & { siwc: NonNullable<AuthenticatedRecord["siwc"]> };

export function isSiwcRecord(record: AuthenticatedRecord): record is SiwcRecord {
  return record.siwc !== undefined;
}

const SIWC_OFF_MESSAGE = "Sign in with ChatGPT is turned off on this server. Sign out and sign in another way.";

const NOT_AVAILABLE = {
  voice: "Voice is not available when you sign in with ChatGPT: plan usage covers text replies only.",
  agentVoice: "Agent voice is not available when you sign in with ChatGPT: plan usage covers text replies only.",
} as const;

/** `not_available_with_siwc` for a feature plan usage does not cover, to throw before any upstream call or process. */
export function notAvailableWithSiwc(feature: keyof typeof NOT_AVAILABLE): ApiError {
  return new ApiError("not_available_with_siwc", { message: NOT_AVAILABLE[feature] });
}

/**
 * Before anything of /models or /responses reaches the API for a SIWC session: the API base
 * (throws `siwc_disabled` when SIWC was turned off since the sign-in), and plan usage (throws
 * `plan_usage_not_granted` when the token response's scopes lack it). `extra` goes into the body
 * (/models answers `models: []` beside its errors).
 */
export function siwcGate(ctx: ServerContext, record: SiwcRecord, extra: Record<string, unknown> = {}): { apiBase: string } {
  const apiBase = ctx.options.signIn.siwc?.apiBase;
  if (apiBase === undefined) throw new ApiError("siwc_disabled", { ...extra, message: SIWC_OFF_MESSAGE });
  if (!record.siwc.planUsage) throw new ApiError("plan_usage_not_granted", extra);
  return { apiBase };
}

/**
 * siwcGate on a SIWC session's record as a refresh left it (the token reply's scopes decide plan
 * usage, and a refresh may grant less than the sign-in did). A refresh never changes a record's kind.
 */
export function siwcGateAfterRefresh(
  ctx: ServerContext,
  record: AuthenticatedRecord,
  extra: Record<string, unknown> = {},
): { apiBase: string; record: SiwcRecord } {
  if (!isSiwcRecord(record)) throw new Error("a SIWC session's record lost its siwc part");
  return { ...siwcGate(ctx, record, extra), record };
}

/** Our reply for a refusal of the SIWC API: its status, our code and sentence, and what else is known. */
export function siwcFailureResponse(failure: SiwcFailure, extra: Record<string, unknown> = {}): Response {
  const fields: Record<string, unknown> = { ...extra, message: failure.message, status: failure.status };
  if (failure.param !== undefined) fields.param = failure.param;
  if (failure.model !== undefined) fields.model = failure.model;
  if (failure.detail !== undefined) fields.detail = failure.detail;
  if (failure.requestId !== undefined) fields.upstreamRequestId = failure.requestId;
  return errorResponse(failure.code, fields, { status: failure.status });
}

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
export async function callSiwcResponses(ctx: ServerContext, request: Request, call: SiwcCall): Promise<Response> {
  const { options } = ctx;
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
