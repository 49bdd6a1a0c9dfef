import "server-only";
import { describeUpstreamFailure, isCloudflareChallenge, pickUsageHeaders } from "@/lib/upstream/backend";
import { isProviderAuthError, isRefreshTokenInvalid } from "@/lib/upstream/errors";
import { classifyModelRefusal, type ModelRefusal } from "@/lib/upstream/model-refusal";
import { isSiwcRefusal, type SiwcFailure } from "@/lib/upstream/siwc-errors";
import { errorResponse } from "../http/api-error";
import { identifierOrUndefined, LOG_PREFIX, type Logger } from "@/lib/logger";
import { bodyForLog } from "../http/upstream-log";


interface UsageLimit {
  resetsAt: number | null;
  resetsInSeconds: number | null;
  planType: string | null;
}

/** `{error:{type:"usage_limit_reached", resets_at, resets_in_seconds, plan_type}}` of a 429, if that is what it is. */
function parseUsageLimit(bodyText: string): UsageLimit | undefined {
  let root: unknown;
  try {
    root = JSON.parse(bodyText);
  } catch {
    return undefined;
  }
  const error = (root as { error?: Record<string, unknown> } | null)?.error;
  if (typeof error !== "object" || error === null) return undefined;
  if (error.type !== "usage_limit_reached" && error.code !== "usage_limit_reached") return undefined;
  const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : null);
  return {
    resetsAt: num(error.resets_at),
    resetsInSeconds: num(error.resets_in_seconds),
    planType: typeof error.plan_type === "string" ? error.plan_type : null,
  };
}

/**
 * What a log line says about a failed upstream reply: the status, the error body's `code` and `type`
 * when they are short identifiers, and a bounded snippet of the body without tokens and with runs of
 * `inputs` (the request's own texts: an error can quote the prompt back) replaced by `[input]`. The
 * edge's challenge page is named (`type=cloudflare_challenge`) instead: its HTML says nothing more.
 */
function describeUpstreamFailureForLog(status: number, bodyText: string, inputs: readonly string[] = []): string {
  if (isCloudflareChallenge(status, bodyText)) return `status=${status} type=cloudflare_challenge`;
  const parts = [`status=${status}`];
  let error: Record<string, unknown> | undefined;
  try {
    const root = JSON.parse(bodyText) as { error?: unknown } | null;
    if (typeof root?.error === "object" && root.error !== null) error = root.error as Record<string, unknown>;
  } catch {
    // Not JSON: nothing more is known.
  }
  const code = identifierOrUndefined(error?.code);
  const type = identifierOrUndefined(error?.type);
  if (code) parts.push(`code=${code}`);
  if (type) parts.push(`type=${type}`);
  return parts.join(" ") + bodyForLog(bodyText, inputs);
}

/** Our words for the backend's refusal of a model: what happened, and who can do what about it. */
function refusalMessage(refusal: ModelRefusal): string {
  return refusal.code === "client_version_outdated"
    ? `The model "${refusal.model}" needs a newer client version than this server sends. ` +
        "The server's operator can raise LWC_CLIENT_VERSION to the model's minimal_client_version (GET /models names it) and restart."
    : `The model "${refusal.model}" is not available with a ChatGPT account any more. Pick another model.`;
}

/**
 * A failed upstream /responses reply (non-2xx; a 3xx redirect is never followed): one log line
 * (fixed prefix, status, code, type and body snippet) and the contract's (docs/api.md) `{error:
 * "responses_request_failed", status, detail}` with the upstream status (502 for a redirect). The
 * backend's refusal of the model itself becomes `client_version_outdated` or `model_not_supported`
 * (400, with `model` and `message`). `inputs` are the request's own texts, replaced by `[input]`.
 */
export function upstreamFailureResponse(logger: Logger, upstream: Response, bodyText: string, inputs: readonly string[]): Response {
  logger.error(`${LOG_PREFIX} upstream /responses failed: ${describeUpstreamFailureForLog(upstream.status, bodyText, inputs)}`);
  if (upstream.status < 400) {
    const detail = `Upstream answered with a redirect (HTTP ${upstream.status}), which is not followed.`;
    return errorResponse("responses_request_failed", { status: 502, detail });
  }
  const { status } = upstream;
  const detail = describeUpstreamFailure(status, bodyText, inputs);
  const refusal = classifyModelRefusal(status, bodyText);
  if (refusal) {
    const fields = { status, model: refusal.model, message: refusalMessage(refusal), detail };
    // Only a 400 is read as a refusal of the model: the codes' own status.
    return errorResponse(refusal.code, fields, { headers: pickUsageHeaders(upstream.headers) });
  }
  const fields: Record<string, unknown> = { status, detail };
  if (status === 429) {
    const usageLimit = parseUsageLimit(bodyText);
    if (usageLimit) fields.usageLimit = usageLimit;
  }
  return errorResponse("responses_request_failed", fields, { status, headers: pickUsageHeaders(upstream.headers) });
}

/**
 * A 2xx /responses reply that is not an event stream (an HTML page, say): refused rather than
 * passed to the browser on this app's origin. One log line with the status and content type only.
 */
export function unexpectedContentTypeResponse(logger: Logger, upstream: Response): Response {
  const type = identifierOrUndefined(upstream.headers.get("content-type")?.split(";")[0]?.trim()) ?? "none";
  logger.error(`${LOG_PREFIX} upstream /responses failed: status=${upstream.status} content-type=${type}`);
  return errorResponse("responses_request_failed", { status: 502, detail: "Upstream answered with something that is not an event stream." });
}

/** True for `text/event-stream` (with or without parameters). */
export function isEventStream(contentType: string | null): boolean {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "text/event-stream";
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


/**
 * A refusal the backend put in our words (the SIWC API's, thrown while reading the catalogue) as
 * the reply; undefined for any other error. `extra` joins the body (/models adds `models: []`).
 */
export function backendRefusalResponse(error: unknown, extra: Record<string, unknown> = {}): Response | undefined {
  return isSiwcRefusal(error) ? siwcFailureResponse(error.failure, extra) : undefined;
}

/** Refresh or catalogue trouble before the model call, in the /responses error shape. */
export function preflightFailure(error: unknown): Response {
  if (isRefreshTokenInvalid(error)) return errorResponse("not_authenticated");
  const refused = backendRefusalResponse(error);
  if (refused) return refused;
  if (!isProviderAuthError(error)) throw error;
  const status =
    error.code === "models_request_failed" && error.status !== undefined && error.status >= 400 ? error.status : 502;
  return errorResponse("responses_request_failed", { status, detail: error.message }, { status });
}
