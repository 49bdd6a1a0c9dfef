import { backendHeaders } from "./backend";
import { fetchUpstreamStream, type UpstreamCallOptions } from "./http";
import type { BackendAuth, ReasoningEffort, ServiceTier, UpstreamConfig } from "./types";

/** Used when the request has no usable `instructions`: the backend requires the field. */
export const DEFAULT_INSTRUCTIONS = "You are a helpful assistant.";

/** Needed so reasoning can be carried into the next turn without server-side storage. */
const ENCRYPTED_REASONING_INCLUDE = "reasoning.encrypted_content";

/** Token caps the backend rejects as unsupported. */
const STRIPPED_TOKEN_CAP_FIELDS = ["max_output_tokens", "max_tokens", "max_completion_tokens"] as const;

/**
 * Sampling knobs the backend rejects (`{"detail":"Unsupported parameter: temperature"}`): every
 * model it serves is a reasoning model. The AI SDK already omits them for models it knows reason.
 */
const STRIPPED_SAMPLING_FIELDS = ["temperature", "top_p", "frequency_penalty", "presence_penalty"] as const;

/** Fields that point at server-side state, which a stateless backend (store: false) cannot resolve. */
const STRIPPED_STATEFUL_FIELDS = ["previous_response_id", "conversation"] as const;

/**
 * Tool types that ask the backend to search the web. Codex sends `web_search` (with
 * `external_web_access`, docs/upstream.md); `web_search_preview` is the public API's older name.
 */
const WEB_SEARCH_TOOL_TYPES = ["web_search", "web_search_preview"] as const;

/** True when the body's `tools` include a web-search tool. */
export function hasWebSearchTool(body: Record<string, unknown>): boolean {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  return tools.some((tool) => isRecord(tool) && (WEB_SEARCH_TOOL_TYPES as readonly unknown[]).includes(tool.type));
}

/** Tier values as the backend spells them; `undefined` means "omit service_tier" (the default tier). */
const BACKEND_SERVICE_TIER: Record<ServiceTier, "flex" | "priority" | undefined> = {
  auto: undefined,
  default: undefined,
  flex: "flex",
  priority: "priority",
  // The UI calls the priority tier "Fast"; Codex sends it as `priority`.
  fast: "priority",
};

/** Maps a header/body tier to the backend's value; undefined = omit the field. Unknown strings pass through. */
export function toBackendServiceTier(tier: string): string | undefined {
  return Object.hasOwn(BACKEND_SERVICE_TIER, tier) ? BACKEND_SERVICE_TIER[tier as ServiceTier] : tier;
}

interface NormalizeResponsesOptions {
  /** From the `x-login-with-provider-service-tier` header; wins over a body `service_tier`. */
  serviceTier?: ServiceTier;
  /** From the `x-login-with-provider-reasoning-effort` header; sets `reasoning.effort`. */
  reasoningEffort?: ReasoningEffort;
  /** The server's instructions (system prompt). Default `DEFAULT_INSTRUCTIONS`. */
  instructions?: string;
  /**
   * `default`: the server's instructions are sent when the body has none. `enforce`: they are
   * always sent, and the body's own instructions follow as the first `developer` input message.
   */
  instructionsMode?: InstructionsMode;
}

export const INSTRUCTIONS_MODES = ["default", "enforce"] as const;
export type InstructionsMode = (typeof INSTRUCTIONS_MODES)[number];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function normalizeInput(input: unknown): unknown {
  // The backend takes a list of items, not the string shorthand of the public API.
  if (typeof input === "string") {
    return [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }];
  }
  if (!Array.isArray(input)) return input;
  return input
    .filter((item) => !(isRecord(item) && item.type === "item_reference"))
    .map((item) => {
      // Only an item that changes is copied (a conversation's turns mostly pass as they are).
      if (!isRecord(item) || (!Object.hasOwn(item, "id") && item.role !== "system")) return item;
      const copy = { ...item };
      delete copy.id;
      // The backend answers "System messages are not allowed"; `developer` is the role Codex
      // itself uses for instruction messages and means the same to the model.
      if (copy.role === "system") copy.role = "developer";
      return copy;
    });
}

function normalizeInclude(include: unknown): string[] {
  const given = Array.isArray(include) ? include.filter((value): value is string => typeof value === "string") : [];
  return [...new Set([...given, ENCRYPTED_REASONING_INCLUDE])];
}

function applyServiceTier(body: Record<string, unknown>, headerTier: ServiceTier | undefined): void {
  const requested = headerTier ?? body.service_tier;
  const mapped = typeof requested === "string" ? toBackendServiceTier(requested) : undefined;
  if (mapped === undefined) delete body.service_tier;
  else body.service_tier = mapped;
}

/**
 * Rewrites a Responses API body (as the AI SDK sends it) into what the stateless Codex backend
 * accepts. Returns a new object; the caller's body is not mutated. Idempotent.
 * Throws a TypeError when `model` is not a non-empty string (callers validate first).
 */
export function normalizeResponsesBody(
  body: Record<string, unknown>,
  options: NormalizeResponsesOptions = {},
): Record<string, unknown> & { model: string } {
  if (typeof body.model !== "string" || body.model.trim() === "") {
    throw new TypeError("A /responses body needs a string `model`");
  }
  const out: Record<string, unknown> & { model: string } = { ...body, model: body.model };

  out.store = false;
  out.stream = true;
  const serverInstructions = options.instructions ?? DEFAULT_INSTRUCTIONS;
  const clientInstructions = typeof out.instructions === "string" && out.instructions.trim() !== "" ? out.instructions : undefined;
  out.instructions = options.instructionsMode === "enforce" ? serverInstructions : (clientInstructions ?? serverInstructions);
  out.include = normalizeInclude(out.include);
  for (const field of [...STRIPPED_TOKEN_CAP_FIELDS, ...STRIPPED_SAMPLING_FIELDS, ...STRIPPED_STATEFUL_FIELDS]) {
    delete out[field];
  }
  if ("input" in out) out.input = normalizeInput(out.input);
  if (options.instructionsMode === "enforce" && clientInstructions !== undefined && clientInstructions !== serverInstructions) {
    // Below the server's: a developer message has no more say than any the client may send anyway.
    const asMessage = { type: "message", role: "developer", content: [{ type: "input_text", text: clientInstructions }] };
    out.input = [asMessage, ...(Array.isArray(out.input) ? out.input : [])];
  }
  applyServiceTier(out, options.serviceTier);
  if (options.reasoningEffort !== undefined) {
    const existing = isRecord(out.reasoning) ? out.reasoning : {};
    const summary = typeof existing.summary === "string" ? existing.summary : "auto";
    out.reasoning = { ...existing, effort: options.reasoningEffort, summary };
  }
  return out;
}

/**
 * The header codex sends with a request in the "responses lite" dialect: for every model whose
 * catalogue entry says `use_responses_lite: true` (docs/upstream.md).
 */
const RESPONSES_LITE_HEADER = "x-openai-internal-codex-responses-lite";

/** Tool types codex groups into one `functions` namespace of the lite shape's `additional_tools` item. */
const GROUPED_TOOL_TYPES: readonly unknown[] = ["function", "custom"];

/**
 * True when the body's tools fit the lite shape: function and custom tools, and namespaces. A hosted
 * tool (web search, image generation, …) does not: codex sends none to a lite model (measured with
 * the pinned codex), so such a request keeps the plain shape, which serves them today.
 */
export function fitsResponsesLite(body: Record<string, unknown>): boolean {
  if (body.tools === undefined || body.tools === null) return true;
  if (!Array.isArray(body.tools)) return false;
  return body.tools.every((tool) => isRecord(tool) && (GROUPED_TOOL_TYPES.includes(tool.type) || tool.type === "namespace"));
}

/**
 * A normalised body in the lite shape, as codex sends it: no top-level `instructions` or `tools`;
 * the input starts with `{type: "additional_tools", role: "developer", tools}` (function and custom
 * tools in one namespace named `functions`, a client's own namespaces beside it; left out when there
 * are no tools), then the instructions as a developer message, then the conversation;
 * `reasoning.context: "all_turns"` and `parallel_tool_calls: false`. Returns a new object; check
 * `fitsResponsesLite` first.
 */
export function toResponsesLite<T extends Record<string, unknown>>(body: T): Omit<T, "instructions" | "tools"> {
  const { instructions, tools, ...rest } = body;
  const given = Array.isArray(tools) ? tools : [];
  const grouped = given.filter((tool) => isRecord(tool) && GROUPED_TOOL_TYPES.includes(tool.type));
  const namespaces = given.filter((tool) => !grouped.includes(tool));
  const offered = grouped.length > 0 ? [{ type: "namespace", name: "functions", description: "", tools: grouped }, ...namespaces] : namespaces;
  const prefix: Record<string, unknown>[] = [];
  if (offered.length > 0) prefix.push({ type: "additional_tools", role: "developer", tools: offered });
  if (typeof instructions === "string") prefix.push({ type: "message", role: "developer", content: [{ type: "input_text", text: instructions }] });
  const reasoning = isRecord(rest.reasoning) ? rest.reasoning : {};
  return {
    ...rest,
    input: [...prefix, ...(Array.isArray(rest.input) ? rest.input : [])],
    reasoning: { ...reasoning, context: "all_turns" },
    parallel_tool_calls: false,
  };
}

/**
 * A 400 that says the backend did not take a request in the lite shape: it asked for the top-level
 * `instructions` a lite request leaves out ("Instructions are required", what a backend that reads
 * it as a plain request answers), or named a part only the lite shape has (`additional_tools`,
 * `reasoning.context`, the dialect itself).
 */
export function isResponsesLiteRejection(status: number, bodyText: string): boolean {
  return status === 400 && /instructions are required|additional_tools|reasoning\.context|responses[ _-]?lite/i.test(bodyText);
}

/** The same body without `service_tier`: for the one retry after a tier rejection. */
export function withoutServiceTier(body: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...body };
  delete rest.service_tier;
  return rest;
}

/** A 400 whose body says the model does not offer the requested tier. */
export function isServiceTierRejection(status: number, bodyText: string): boolean {
  return status === 400 && /unsupported service_tier/i.test(bodyText);
}

/**
 * POSTs the body to the backend's /responses as an SSE stream and returns the upstream Response
 * unconsumed, whatever its status. The body is sent exactly as given: normalise it first with
 * `normalizeResponsesBody`, and put it in the lite shape with `toResponsesLite` when sending it with
 * `lite: true` (the dialect's header). Throws only `network_error`; an abort by the caller's signal
 * is rethrown as the AbortError itself.
 */
export function postResponses(
  config: UpstreamConfig,
  auth: BackendAuth,
  body: Record<string, unknown>,
  options: UpstreamCallOptions & { lite?: boolean } = {},
): Promise<Response> {
  const extra: Record<string, string> = { Accept: "text/event-stream", "Content-Type": "application/json" };
  if (options.lite) extra[RESPONSES_LITE_HEADER] = "true";
  return fetchUpstreamStream(
    config,
    `${config.codexBaseUrl}/responses`,
    {
      method: "POST",
      headers: backendHeaders(config, auth, extra),
      body: JSON.stringify(body),
    },
    "Responses request",
    options,
  );
}
