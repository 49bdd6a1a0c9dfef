import { APICallError, NoOutputGeneratedError } from "ai";
import { apiErrorCode, type ApiErrorCode } from "@/lib/error-codes";
import { parseJsonObject, readRetryAfterSeconds } from "./provider-proxy-error";

/** The provider's usage limit, as the service reports it in a 429 `responses_request_failed` body. */
export interface UsageLimitInfo {
  /** Epoch milliseconds. */
  resetsAt?: number;
  resetsInSeconds?: number;
  planType?: string;
}

/** The service's code (lib/error-codes.ts), or one of the browser's own for failures it sees itself. */
type ChatErrorCode = ApiErrorCode | "usage_limit" | "images_not_supported" | "no_output" | "stream_failed";

/**
 * A chat failure in a form the UI can show: `code` is the service's error code where there is one
 * (`rate_limited`, `model_not_allowed`, `not_authenticated`, `responses_request_failed`, ...), plus
 * `usage_limit` for the plan's limit, `images_not_supported` for a model that refused images, and
 * `network_error`, `no_output`, `stream_failed` for failures
 * that never reached or left the service cleanly.
 */
export interface ChatErrorInfo {
  code: ChatErrorCode;
  message: string;
  status?: number;
  retryAfterSeconds?: number;
  usageLimit?: UsageLimitInfo;
  model?: string;
}

function asNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** The service may report resetsAt in seconds or milliseconds; normalise to milliseconds. */
function toEpochMs(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  return value < 1e12 ? value * 1000 : value;
}

function readUsageLimit(body: Record<string, unknown>): UsageLimitInfo | undefined {
  const raw = body.usageLimit;
  if (raw === null || typeof raw !== "object") return undefined;
  const limit = raw as Record<string, unknown>;
  const resetsInSeconds = asNumber(limit.resetsInSeconds);
  const resetsAt =
    toEpochMs(asNumber(limit.resetsAt)) ??
    (resetsInSeconds === undefined ? undefined : Date.now() + resetsInSeconds * 1000);
  return {
    resetsAt,
    resetsInSeconds,
    planType: typeof limit.planType === "string" ? limit.planType : undefined,
  };
}

/** The backend's refusal of an image for a model that reads text only (it names the model). */
const IMAGES_REFUSED = /(?:The '([^']+)' model|model) does not support image inputs/i;

function describeServiceError(status: number | undefined, body: Record<string, unknown> | undefined, retryAfterHeader?: string): ChatErrorInfo {
  const code = apiErrorCode(body?.error) ?? (status === 401 ? "not_authenticated" : "responses_request_failed");
  const detail = typeof body?.detail === "string" ? body.detail : typeof body?.message === "string" ? body.message : undefined;
  const upstreamStatus = asNumber(body?.status) ?? status;

  switch (code) {
    case "not_authenticated":
      return { code, status, message: "You're signed out. Sign in again to keep chatting." };
    case "rate_limited": {
      const retryAfterSeconds = readRetryAfterSeconds(body, retryAfterHeader) ?? 60;
      return {
        code,
        status,
        retryAfterSeconds,
        message: `Too many requests — try again in ${retryAfterSeconds} ${retryAfterSeconds === 1 ? "second" : "seconds"}.`,
      };
    }
    case "model_not_allowed": {
      const model = typeof body?.model === "string" ? body.model : undefined;
      return {
        code,
        status,
        model,
        message: `${model ? `The model “${model}”` : "This model"} isn't available in this app. Pick another model.`,
      };
    }
    case "client_version_outdated":
    case "model_not_supported": {
      const model = typeof body?.model === "string" ? body.model : undefined;
      const named = model ? `“${model}”` : "This model";
      const message =
        code === "client_version_outdated"
          ? `${named} needs a newer client version than this server uses. Pick another model; the server's operator can raise LWC_CLIENT_VERSION.`
          : `${named} is no longer offered for ChatGPT accounts. Pick another model.`;
      return { code, status, model, message };
    }
    case "invalid_service_tier":
      return { code, status, message: "The Fast setting was not accepted. Turn Fast off and try again." };
    case "invalid_reasoning_effort":
      return { code, status, message: "That reasoning effort was not accepted. Pick another one and try again." };
    case "responses_request_too_large":
      return { code, status, message: "This conversation is too long to send. Start a new chat and try again." };
    case "origin_not_allowed":
      return { code, status, message: "The server refused a request from this page's address (origin not allowed)." };
    case "responses_request_failed": {
      const usageLimit = body ? readUsageLimit(body) : undefined;
      if (usageLimit) return { code: "usage_limit", status: upstreamStatus, usageLimit, message: "You've reached your plan's usage limit." };
      const imagesRefused = detail ? IMAGES_REFUSED.exec(detail) : null;
      if (imagesRefused) {
        const model = imagesRefused[1];
        return {
          code: "images_not_supported",
          status: upstreamStatus,
          model,
          message: `${model ? `The model “${model}”` : "This model"} doesn't take images. Pick a model that does, or remove the images from this turn.`,
        };
      }
      const statusLabel = upstreamStatus === undefined ? "" : String(upstreamStatus);
      const message = detail
        ? detail.includes(statusLabel)
          ? detail
          : `${detail} (status ${statusLabel})`
        : `The model service answered with status ${statusLabel || "unknown"}.`;
      return { code, status: upstreamStatus, message };
    }
    default:
      return {
        code,
        status,
        message: detail ?? `The request failed${status ? ` (status ${status})` : ""}.`,
      };
  }
}

function isStreamErrorEvent(value: unknown): value is { type: "error"; message: string } {
  if (typeof value !== "object" || value === null) return false;
  const event = value as { type?: unknown; message?: unknown };
  return event.type === "error" && typeof event.message === "string" && event.message !== "";
}

const ADDRESS = /\b(?:https?|wss?):\/\/[^\s"'<>)]+/gi;

/** A server's detail can name the provider's internal address; the person needs the problem, not the URL. */
function withoutAddresses(text: string): string {
  return text.replace(ADDRESS, "the model service");
}

/** Turns whatever a chat call threw into words for the UI (never includes prompt text, secrets or internal addresses). */
export function describeChatError(error: unknown): ChatErrorInfo {
  const described = describeAnyError(error);
  return { ...described, message: withoutAddresses(described.message) };
}

function describeAnyError(error: unknown): ChatErrorInfo {
  if (APICallError.isInstance(error)) {
    if (error.statusCode === undefined) {
      return { code: "network_error", message: "Couldn't reach the server. Check your connection and try again." };
    }
    if (error.statusCode < 400) {
      // The reply started fine and the connection broke while the answer streamed.
      return { code: "stream_failed", message: "The connection closed before the answer finished. Try again." };
    }
    const body = parseJsonObject(error.responseBody);
    // A failure event inside the SSE stream (response.failed / error) arrives as an APICallError too.
    if (body && typeof body.error !== "string" && (body.type === "response.failed" || body.type === "error")) {
      return { code: "stream_failed", message: `The answer was interrupted: ${error.message}` };
    }
    return describeServiceError(error.statusCode, body, error.responseHeaders?.["retry-after"]);
  }
  if (NoOutputGeneratedError.isInstance(error)) {
    return { code: "no_output", message: "The model finished without an answer. Try again." };
  }
  if (error instanceof TypeError) {
    return { code: "network_error", message: "Couldn't reach the server. Check your connection and try again." };
  }
  // An `error` event inside the stream (e.g. the proxy's upstream_stream_interrupted) reaches us as the raw event.
  if (isStreamErrorEvent(error)) {
    return { code: "stream_failed", message: error.message };
  }
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : "";
  return {
    code: "stream_failed",
    message: `The answer was interrupted${message ? `: ${message}` : "."}`,
  };
}

const MARKER = "lwc-chat-error:";

/**
 * The chat UI only receives an error *text* from the UI message stream, so the transport encodes
 * the described error into that text and the UI decodes it again.
 */
export function encodeChatError(error: unknown): string {
  return MARKER + JSON.stringify(describeChatError(error));
}

export function decodeChatError(error: Error | undefined): ChatErrorInfo | undefined {
  if (!error) return undefined;
  if (error.message.startsWith(MARKER)) {
    const parsed = parseJsonObject(error.message.slice(MARKER.length));
    if (parsed && typeof parsed.code === "string" && typeof parsed.message === "string") return parsed as unknown as ChatErrorInfo;
  }
  return describeChatError(error);
}
