import type { RouteCall } from "../context";
import { isRecord, sendJson } from "../http-util";
import { lastUserText } from "../reply-text";
import { authenticate } from "./api-auth";
import type { SiwcContext, SiwcHandler } from "./context";
import { PLAN_USE_SCOPE } from "./state";
import { writeSiwcStream, STREAM_SWITCHES } from "./stream";
import { SIWC_SWITCHES, type SiwcSwitch, type SiwcSwitchRule } from "./switches";

/** Fields the direct route refuses (spec §7), plus previous_response_id over HTTP. */
const REFUSED_FIELDS = [
  "background",
  "conversation",
  "max_output_tokens",
  "max_tool_calls",
  "metadata",
  "moderation",
  "multi_agent",
  "prompt",
  "prompt_cache_retention",
  "safety_identifier",
  "temperature",
  "top_logprobs",
  "top_p",
  "truncation",
  "user",
  "previous_response_id",
] as const;

/** Top-level tool types the route accepts: function/custom tools only inside a namespace group. */
const ALLOWED_TOOL_TYPES = ["namespace", "web_search"];
const ALLOWED_SERVICE_TIERS = ["auto", "default"];

function structured(code: string, message: string, param: string | null = null) {
  return { error: { message, type: "invalid_request_error", param, code } };
}

/** The HTTP errors before the stream, by switch. */
const HTTP_ERRORS: [SiwcSwitch, number, unknown][] = [
  ["usage_limit_exceeded", 429, structured("subscription_sharing_usage_limit_exceeded", "You've reached your ChatGPT plan's usage limit for this app.")],
  ["user_not_eligible", 403, structured("subscription_sharing_user_not_eligible", "This ChatGPT account is not eligible to use its plan in this app.")],
  ["chatpass_scope_not_authorized", 403, structured("chatpass_v2_scope_not_authorized", "The grant does not authorize this request.")],
  ["chatpass_invalid_authorization_context", 403, structured("chatpass_v2_invalid_authorization_context", "Invalid authorization context.")],
  ["invalid_user", 401, structured("subscription_sharing_invalid_user", "The user could not be resolved for this request.")],
  ["usage_unavailable", 503, structured("subscription_sharing_usage_unavailable", "Plan usage is temporarily unavailable.")],
  ["user_unavailable", 503, structured("subscription_sharing_user_unavailable", "The user's plan is temporarily unavailable.")],
  ["detail_401", 401, { detail: "Signed identity or direct permission not accepted." }],
  ["detail_403", 403, { detail: "Direct requests are not available in your region." }],
  ["detail_503", 503, { detail: "Direct routing is temporarily unavailable." }],
];

const MARKER = /\[\[mock:([a-z_]+)\]\]/g;

/** Switches named by `[[mock:<switch>]]` in the newest user message (for the demo and e2e). */
function markedSwitches(body: unknown): Set<SiwcSwitch> {
  const text = lastUserText(isRecord(body) ? body.input : undefined);
  const names = [...text.matchAll(MARKER)].map((match) => match[1]);
  return new Set(SIWC_SWITCHES.filter((name) => names.includes(name)));
}

function unsupported(call: RouteCall, param: string): void {
  sendJson(call.response, 400, structured("subscription_sharing_unsupported_capability", `Unsupported with ChatGPT plan usage: ${param}.`, param));
}

/** The first refusal of the body, answered; true when the body is fine. */
function validBody(call: RouteCall, body: Record<string, unknown>): boolean {
  if (!Array.isArray(body.input)) {
    sendJson(call.response, 422, {
      detail: [{ type: "list_type", loc: ["body", "input"], msg: "Input should be a valid list", input: body.input ?? null }],
    });
    return false;
  }
  if (typeof body.model !== "string" || body.model.length === 0) {
    sendJson(call.response, 400, { detail: "model is required" });
    return false;
  }
  if (body.store !== false) {
    sendJson(call.response, 400, { detail: "Store must be set to false" });
    return false;
  }
  if (body.stream !== true) {
    sendJson(call.response, 400, { detail: "Stream must be set to true" });
    return false;
  }
  const field = REFUSED_FIELDS.find((name) => name in body);
  if (field) {
    unsupported(call, field);
    return false;
  }
  const systemIndex = body.input.findIndex((item) => isRecord(item) && item.role === "system");
  if (systemIndex >= 0) {
    unsupported(call, `input[${systemIndex}].role`);
    return false;
  }
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const toolIndex = tools.findIndex((tool) => !isRecord(tool) || !ALLOWED_TOOL_TYPES.includes(String(tool.type)));
  if (toolIndex >= 0) {
    unsupported(call, `tools[${toolIndex}]`);
    return false;
  }
  if (body.service_tier !== undefined && body.service_tier !== null && !ALLOWED_SERVICE_TIERS.includes(String(body.service_tier))) {
    unsupported(call, "service_tier");
    return false;
  }
  return true;
}

/**
 * POST /siwc/v1/responses: a valid token with chatgpt.tokens.use.direct, an eligible account
 * under its usage limit, a body the direct route accepts; then the SSE stream.
 */
export const handleSiwcResponses: SiwcHandler = async (siwc, call) => {
  const caller = await authenticate(siwc, call);
  if (!caller) return;
  if (!caller.scopes.includes(PLAN_USE_SCOPE)) {
    return sendJson(call.response, 401, { detail: "This access token does not grant ChatGPT plan usage." });
  }
  const marked = markedSwitches(call.body.value);
  const fires = (name: SiwcSwitch): SiwcSwitchRule | undefined => (marked.has(name) ? { switch: name } : siwc.switches.take(name));
  for (const [name, status, body] of HTTP_ERRORS) {
    if (fires(name)) return sendJson(call.response, status, body);
  }
  if (caller.account.eligibility === "free" || caller.account.eligibility === "workspace_ineligible") {
    return sendJson(call.response, 403, HTTP_ERRORS[1]![2]);
  }
  const usageKey = siwc.state.usageKey(caller.family.clientId, caller.family.hostId);
  const used = siwc.state.usage.get(usageKey) ?? 0;
  if (siwc.settings.usageLimit !== null && used >= siwc.settings.usageLimit) {
    return sendJson(call.response, 429, HTTP_ERRORS[0]![2]);
  }
  const body = call.body.value;
  if (call.body.kind !== "json" || !isRecord(body)) return sendJson(call.response, 400, { detail: "Expected a JSON object body" });
  if (!validBody(call, body)) return;
  siwc.state.usage.set(usageKey, used + 1);
  const markedStream = STREAM_SWITCHES.find((name) => marked.has(name));
  const registration = siwc.state.registrations.get(caller.family.clientId);
  const known = siwc.catalog(caller.account, registration?.workspace ?? "personal").some((m) => m.slug === body.model);
  await writeSiwcStream(call, {
    body,
    eventLines: siwc.settings.sseEventLines,
    chunkDelayMs: siwc.chunkDelayMs(),
    fault: markedStream ? { switch: markedStream } : siwc.switches.takeFirst(STREAM_SWITCHES),
    modelKnown: known,
  });
};

/** Any other path or method under /siwc/v1. */
export function sendRouteNotSupported(_siwc: SiwcContext, call: RouteCall): void {
  sendJson(call.response, 403, structured("subscription_sharing_route_not_supported", `${call.request.method} ${call.url.pathname} is not supported with ChatGPT plan usage.`));
}
