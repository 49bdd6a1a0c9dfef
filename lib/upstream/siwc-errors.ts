import "server-only";
import { ProviderAuthError } from "./errors";
import { parseJsonOrUndefined } from "./http";
import { upstreamSnippet } from "./redact";

/**
 * The SIWC backend's refusals (spec siwc.md §9) in our words. Each `subscription_sharing_*` /
 * `chatpass_*` code (and the older `subscription_sharing_v2_*` names), a bare `{detail}` 401/403/503
 * and `model_not_found` become one of our codes (each in lib/error-codes.ts) with a sentence. Plan
 * errors stop the request: nothing here retries or suggests another way of paying.
 */
type SiwcErrorCode =
  | "plan_usage_limit_reached"
  | "plan_not_eligible"
  | "plan_usage_unavailable"
  | "plan_route_not_supported"
  | "plan_authorization_invalid"
  | "plan_access_restricted"
  | "unsupported_field"
  | "model_not_supported"
  | "responses_request_failed"
  | "models_request_failed";

/** Where a person manages their plan's usage for apps (spec §2): the primary action at a usage limit. */
export const MANAGE_USAGE_URL = "https://chatgpt.com/settings/usage";

export interface SiwcFailure {
  /** Our reply's status: the backend's own where it answered over HTTP, else the code's usual one. */
  status: number;
  code: SiwcErrorCode;
  /** Our sentence for the person. */
  message: string;
  /** The backend's code, when it sent one that looks like an identifier. */
  upstreamCode?: string;
  /** `unsupported_field`: the field (the backend's `param`). */
  param?: string;
  /** `model_not_supported`: the model asked for. */
  model?: string;
  /** A bounded, redacted snippet of the backend's own words (never for a usage limit). */
  detail?: string;
  /** The backend's request id (`x-request-id`, else `openai-request-id`) of the failed reply, when it sent one. */
  requestId?: string;
}

const IDENTIFIER = /^[A-Za-z0-9_.:-]{1,100}$/;
const PARAM = /^[A-Za-z0-9_.[\]-]{1,100}$/;
const KNOWN_CODE_IN_TEXT = /\b(subscription_sharing_[a-z0-9_]+|chatpass_[a-z0-9_]+|model_not_found)\b/;

const USAGE_LIMIT_MESSAGE =
  `You've reached the usage limit of your ChatGPT plan for this app. Manage usage in your ChatGPT settings: ${MANAGE_USAGE_URL}`;
const UNAVAILABLE_MESSAGE = "ChatGPT plan usage is unavailable right now. Try again in a few minutes.";
const AUTHORIZATION_MESSAGE =
  "ChatGPT did not accept this sign-in for plan usage. If it keeps happening, sign out and continue with ChatGPT again.";
const RESTRICTED_MESSAGE = "ChatGPT refused plan usage for this account or place.";

interface Mapping {
  code: SiwcErrorCode;
  /** The usual status, for a failure that arrives inside the stream. */
  status: number;
  message: string;
}

/** By the backend's code, after `subscription_sharing_v2_` is read as `subscription_sharing_`. */
const BY_CODE: Record<string, Mapping> = {
  subscription_sharing_usage_limit_exceeded: { code: "plan_usage_limit_reached", status: 429, message: USAGE_LIMIT_MESSAGE },
  subscription_sharing_user_not_eligible: {
    code: "plan_not_eligible",
    status: 403,
    message: "This ChatGPT account's plan can't be used in this app: plan usage is for eligible ChatGPT Plus and Pro plans.",
  },
  subscription_sharing_usage_unavailable: { code: "plan_usage_unavailable", status: 503, message: UNAVAILABLE_MESSAGE },
  subscription_sharing_user_unavailable: {
    code: "plan_usage_unavailable",
    status: 503,
    message: "ChatGPT can't serve this account's plan usage right now. Try again in a few minutes.",
  },
  subscription_sharing_route_not_supported: {
    code: "plan_route_not_supported",
    status: 403,
    message: "ChatGPT plan usage does not cover this kind of request.",
  },
  subscription_sharing_invalid_user: { code: "plan_authorization_invalid", status: 401, message: AUTHORIZATION_MESSAGE },
  subscription_sharing_client_not_enabled: {
    code: "plan_authorization_invalid",
    status: 403,
    message: "This app is not enabled for ChatGPT plan usage.",
  },
  chatpass_v2_scope_not_authorized: {
    code: "plan_authorization_invalid",
    status: 403,
    message: "This sign-in does not allow plan usage for this request. Enable plan usage again (Continue with ChatGPT).",
  },
  chatpass_v2_invalid_authorization_context: { code: "plan_authorization_invalid", status: 403, message: AUTHORIZATION_MESSAGE },
  chatpass_v2_blocked_region: {
    code: "plan_access_restricted",
    status: 403,
    message: "ChatGPT plan usage is not available where this request comes from.",
  },
  chatpass_v2_suspended: { code: "plan_access_restricted", status: 403, message: "ChatGPT plan usage is suspended for this account." },
};

/** For a `{detail}` body (or an unknown plan code) by status alone. */
const BY_STATUS: Record<number, Mapping> = {
  401: { code: "plan_authorization_invalid", status: 401, message: AUTHORIZATION_MESSAGE },
  403: { code: "plan_access_restricted", status: 403, message: RESTRICTED_MESSAGE },
  503: { code: "plan_usage_unavailable", status: 503, message: UNAVAILABLE_MESSAGE },
};

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

const identifier = (value: unknown) => (typeof value === "string" && IDENTIFIER.test(value) ? value : undefined);

/** The older names the DevKit maps to the current ones (`subscription_sharing_v2_x` → `subscription_sharing_x`). */
function currentName(code: string): string {
  return code.replace(/^subscription_sharing_v2_/, "subscription_sharing_");
}

interface ReadBody {
  code?: string;
  param?: string;
  /** The backend's words: `detail` (a string), else `error.message` / `message`. */
  words?: string;
}

/**
 * The code, param and words of an error body in any of its shapes: `{error: {code, param, message}}`,
 * `{error: "code"}`, `{detail: {code, param}}`, `{detail: "text"}` (a known code named in the text
 * counts), `{code, param, message}`, nested up to four `error`/`detail` levels.
 */
function readBody(value: unknown): ReadBody {
  const result: ReadBody = {};
  let node = asRecord(value);
  for (let depth = 0; node && depth < 4; depth++) {
    result.code ??= identifier(node.code) ?? identifier(node.error);
    result.param ??= typeof node.param === "string" && PARAM.test(node.param) ? node.param : undefined;
    const words = [node.detail, node.message].find((text): text is string => typeof text === "string" && text.trim() !== "");
    if (words !== undefined) {
      result.words ??= words;
      result.code ??= KNOWN_CODE_IN_TEXT.exec(words)?.[1];
    }
    node = asRecord(node.error) ?? asRecord(node.detail);
  }
  return result;
}

function mappingFor(code: string | undefined, status: number | undefined): Mapping | undefined {
  if (code !== undefined) {
    const known = BY_CODE[currentName(code)];
    if (known) return known;
  }
  return status === undefined ? undefined : BY_STATUS[status];
}

interface ClassifyContext {
  /** Which request failed: its generic code when nothing more specific is known. */
  route: "models" | "responses";
  /** The model asked for (for `model_not_found`). */
  model?: string;
  /** The request's own texts: runs of them are replaced by `[input]` in `detail`. */
  inputs?: readonly string[];
}

function build(
  mapping: Pick<Mapping, "code" | "message">,
  status: number,
  read: ReadBody,
  context: ClassifyContext,
): SiwcFailure {
  const failure: SiwcFailure = { status, code: mapping.code, message: mapping.message };
  if (read.code !== undefined) failure.upstreamCode = read.code;
  // A usage limit carries no reset time of ours or theirs: the words are left out.
  if (read.words !== undefined && mapping.code !== "plan_usage_limit_reached") {
    const detail = upstreamSnippet(read.words, { inputs: context.inputs ?? [] });
    if (detail !== undefined) failure.detail = detail;
  }
  return failure;
}

function unsupportedField(status: number, read: ReadBody, context: ClassifyContext): SiwcFailure {
  const named = read.param ? `\`${read.param}\`` : "a field of this request";
  const failure = build(
    { code: "unsupported_field", message: `ChatGPT plan usage does not accept ${named}. Remove it and try again.` },
    status,
    read,
    context,
  );
  if (read.param) failure.param = read.param;
  return failure;
}

function modelNotFound(status: number, read: ReadBody, context: ClassifyContext): SiwcFailure {
  const named = context.model ? `The model "${context.model}"` : "This model";
  const failure = build(
    { code: "model_not_supported", message: `${named} is not available with this ChatGPT sign-in. Pick another model.` },
    status,
    read,
    context,
  );
  if (context.model) failure.model = context.model;
  return failure;
}

function classify(status: number | undefined, read: ReadBody, context: ClassifyContext): SiwcFailure {
  const code = read.code === undefined ? undefined : currentName(read.code);
  if (code === "subscription_sharing_unsupported_capability") return unsupportedField(status ?? 400, read, context);
  if (code === "model_not_found") return modelNotFound(status ?? 404, read, context);
  const mapping = mappingFor(code, status);
  if (mapping) return build(mapping, status ?? mapping.status, read, context);
  const generic = context.route === "models" ? "models_request_failed" : "responses_request_failed";
  const message =
    status === undefined
      ? `The model's reply failed${read.code ? ` (${read.code})` : ""}. Try again.`
      : `The model service answered ${status}${read.code ? ` (${read.code})` : ""}.`;
  return build({ code: generic, message }, status ?? 502, read, context);
}

/** The backend's request id of a reply, when it is identifier-shaped (the docs ask to keep it). */
export function siwcRequestId(headers: Headers): string | undefined {
  return identifier(headers.get("x-request-id")) ?? identifier(headers.get("openai-request-id"));
}

/** A failed HTTP reply (status ≥ 400) of the SIWC API, in our words, with the reply's request id. */
export function classifySiwcHttpFailure(status: number, bodyText: string, headers: Headers, context: ClassifyContext): SiwcFailure {
  const failure = classify(status, readBody(parseJsonOrUndefined(bodyText)), context);
  const requestId = siwcRequestId(headers);
  if (requestId !== undefined) failure.requestId = requestId;
  return failure;
}

/**
 * A failure inside the stream: a `response.failed` event (`response.error`) or a top-level `error`
 * event. The status is the code's usual one (the reply itself was a 200).
 */
export function classifySiwcStreamFailure(event: Record<string, unknown>, context: ClassifyContext): SiwcFailure {
  const source = event.type === "response.failed" ? asRecord(asRecord(event.response)?.error) : event;
  return classify(undefined, readBody(source), context);
}

/**
 * A refusal of a SIWC API call, thrown where a ProviderAuthError is expected (the model list): the
 * code stays `models_request_failed` for the code paths that look at it, and `failure` says what to answer.
 */
export class SiwcRefusal extends ProviderAuthError {
  readonly failure: SiwcFailure;

  constructor(failure: SiwcFailure, body: string) {
    super("models_request_failed", failure.message, { status: failure.status, body });
    this.failure = failure;
  }
}

export function isSiwcRefusal(error: unknown): error is SiwcRefusal {
  return error instanceof SiwcRefusal;
}
