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
type ChatErrorCode = ApiErrorCode | "usage_limit" | "images_not_supported" | "refused" | "sent_while_signed_out" | "no_output" | "stream_failed";

/**
 * A chat failure in a form the UI can show: `code` is the service's error code where there is one
 * (`rate_limited`, `model_not_allowed`, `not_authenticated`, `responses_request_failed`, ...), plus
 * `usage_limit` for the plan's limit, `images_not_supported` for a model that refused images,
 * `refused` for a request the provider's safety system declined (a picture it would not make),
 * `sent_while_signed_out` for a `not_authenticated` turn shown after signing in again, and
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
  /** `unsupported_field`: the request field ChatGPT plan usage refused. */
  field?: string;
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

/** The ChatGPT-plan refusals of a Sign in with ChatGPT session (docs/siwc.md), in words. */
const PLAN_MESSAGES = {
  plan_usage_limit_reached:
    "You've reached what this app may use of your ChatGPT plan for now. Manage usage in your ChatGPT settings; this app never switches to another way of paying.",
  plan_usage_not_granted:
    "You signed in without letting this app use your ChatGPT plan, so it can't answer. Enable plan usage to chat.",
  plan_not_eligible: "Your ChatGPT plan can't be used in this app (ChatGPT plan usage is for eligible plans).",
  plan_usage_unavailable: "ChatGPT plan usage is unavailable right now. Try again in a little while.",
  plan_route_not_supported: "ChatGPT plan usage doesn't support this kind of request.",
  plan_authorization_invalid: "ChatGPT didn't accept this app's access to your plan. Sign out, then continue with ChatGPT again.",
  plan_access_restricted: "ChatGPT refused plan usage for this account or from where this request comes.",
  not_available_with_siwc: "That isn't available when you're signed in with Continue with ChatGPT.",
} satisfies Partial<Record<ApiErrorCode, string>>;

type PlanCode = keyof typeof PLAN_MESSAGES;

function isPlanCode(code: string): code is PlanCode {
  return Object.hasOwn(PLAN_MESSAGES, code);
}

function unsupportedFieldError(status: number | undefined, field: unknown): ChatErrorInfo {
  const named = typeof field === "string" && /^[\w.[\]-]{1,80}$/.test(field) ? field : undefined;
  return {
    code: "unsupported_field",
    status,
    field: named,
    message: named
      ? `ChatGPT plan usage doesn't accept “${named}” in a request. Change the setting that adds it and try again.`
      : "ChatGPT plan usage doesn't accept part of this request. Change the settings and try again.",
  };
}

function planError(code: PlanCode | "unsupported_field", status: number | undefined, field?: unknown): ChatErrorInfo {
  return code === "unsupported_field" ? unsupportedFieldError(status, field) : { code, status, message: PLAN_MESSAGES[code] };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * A plan refusal inside the stream (the proxy turns the backend's `response.failed` and `error`
 * events into an `error` event with our code), from whichever shape the AI SDK handed over: the event
 * itself, its provider stream error (`code`, `data`), or an API call error whose body is the event.
 */
function streamPlanError(event: Record<string, unknown> | undefined): ChatErrorInfo | undefined {
  if (!event) return undefined;
  const nested = asRecord(asRecord(event.response)?.error) ?? asRecord(event.error);
  for (const candidate of [event, nested]) {
    const code = typeof candidate?.code === "string" ? candidate.code : undefined;
    if (!code) continue;
    if (isPlanCode(code) || code === "unsupported_field") return planError(code, asNumber(candidate?.status), candidate?.field ?? candidate?.param);
  }
  return asRecord(event.data) ? streamPlanError(asRecord(event.data)) : undefined;
}

/**
 * The codes a `response.failed` event carries when the provider declined the request itself (its
 * safety system blocked a picture): asking again gets the same answer, so it is not an interruption.
 */
const REFUSAL_CODES = new Set(["moderation_blocked", "content_policy_violation"]);

/** A refusal inside the stream, from the same shapes as streamPlanError reads; its message is the provider's. */
function streamRefusal(event: Record<string, unknown> | undefined): ChatErrorInfo | undefined {
  if (!event) return undefined;
  const nested = asRecord(asRecord(event.response)?.error) ?? asRecord(event.error);
  for (const candidate of [event, nested]) {
    if (typeof candidate?.code !== "string" || !REFUSAL_CODES.has(candidate.code)) continue;
    const message = typeof nested?.message === "string" ? nested.message : typeof candidate.message === "string" ? candidate.message : "";
    return { code: "refused", message: message || "The request was declined by the provider's safety system." };
  }
  return asRecord(event.data) ? streamRefusal(asRecord(event.data)) : undefined;
}

function describeServiceError(status: number | undefined, body: Record<string, unknown> | undefined, retryAfterHeader?: string): ChatErrorInfo {
  const code = apiErrorCode(body?.error) ?? (status === 401 ? "not_authenticated" : "responses_request_failed");
  const detail = typeof body?.detail === "string" ? body.detail : typeof body?.message === "string" ? body.message : undefined;
  const upstreamStatus = asNumber(body?.status) ?? status;

  if (isPlanCode(code) || code === "unsupported_field") return planError(code, status, body?.field ?? body?.param);
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
      return streamPlanError(body) ?? streamRefusal(body) ?? { code: "stream_failed", message: `The answer was interrupted: ${error.message}` };
    }
    return describeServiceError(error.statusCode, body, error.responseHeaders?.["retry-after"]);
  }
  if (NoOutputGeneratedError.isInstance(error)) {
    return { code: "no_output", message: "The model finished without an answer. Try again." };
  }
  if (error instanceof TypeError) {
    return { code: "network_error", message: "Couldn't reach the server. Check your connection and try again." };
  }
  const planRefusal = streamPlanError(asRecord(error)) ?? streamRefusal(asRecord(error));
  if (planRefusal) return planRefusal;
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
