import "server-only";
import { fetchUpstreamStream, type UpstreamCallOptions } from "./http";
import { DEFAULT_INSTRUCTIONS, toBackendServiceTier, type InstructionsMode } from "./responses";
import type { ReasoningEffort, ServiceTier, UpstreamConfig } from "./types";

/**
 * Body fields the SIWC backend refuses (spec siwc.md §7): the fifteen it lists, and
 * `previous_response_id` (nothing is stored, so there is nothing to continue from).
 */
export const SIWC_REFUSED_FIELDS = [
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

/**
 * Top-level tool types it takes: `namespace` groups (function and custom tools go inside one) and
 * web search. Anything else (image generation, file search, code interpreter, computer use, MCP,
 * tool search, a bare function) is refused here rather than sent.
 */
const ALLOWED_TOOL_TYPES: readonly unknown[] = ["namespace", "web_search", "web_search_preview"];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

interface SiwcBodyOptions {
  /** From the `x-login-with-provider-service-tier` header; wins over a body `service_tier`. */
  serviceTier?: ServiceTier;
  /** From the `x-login-with-provider-reasoning-effort` header; sets `reasoning.effort`. */
  reasoningEffort?: ReasoningEffort;
  /** The server's instructions; default `DEFAULT_INSTRUCTIONS`. */
  instructions?: string;
  instructionsMode?: InstructionsMode;
}

/**
 * What the backend would refuse: named (`param`, as the backend names it) and explained. `code`:
 * `not_available_with_siwc` for a feature plan usage does not offer (image generation, like voice),
 * `unsupported_field` for a field or tool the request can do without.
 */
interface SiwcBodyRefusal {
  code: "unsupported_field" | "not_available_with_siwc";
  param: string;
  message: string;
}

type Prepared = { ok: true; body: Record<string, unknown> & { model: string } } | { ok: false; refusal: SiwcBodyRefusal };

function refuse(param: string, message: string, code: SiwcBodyRefusal["code"] = "unsupported_field"): Prepared {
  return { ok: false, refusal: { code, param, message } };
}

/** The first `image_generation` tool: a feature plan usage lacks, answered before any field refusal. */
function imageGenerationRefusal(tools: unknown): Prepared | undefined {
  if (!Array.isArray(tools)) return undefined;
  const index = tools.findIndex((tool) => isRecord(tool) && tool.type === "image_generation");
  if (index < 0) return undefined;
  return refuse(`tools[${index}]`, "Image generation is not available when you sign in with ChatGPT.", "not_available_with_siwc");
}

function toolRefusal(tools: unknown): Prepared | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) return refuse("tools", "`tools` must be a list.");
  for (const [index, tool] of tools.entries()) {
    const type = isRecord(tool) ? tool.type : undefined;
    if (ALLOWED_TOOL_TYPES.includes(type)) continue;
    const param = `tools[${index}]`;
    if (type === "function" || type === "custom") {
      return refuse(param, `A ${type} tool must be inside a \`namespace\` group with Sign in with ChatGPT.`);
    }
    const named = typeof type === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(type) ? ` "${type}"` : "";
    return refuse(param, `The tool${named} is not available with Sign in with ChatGPT.`);
  }
  return undefined;
}

/** One input item as the backend takes it: no stored-item id, `developer` for `system`. */
function inputItem(item: unknown): unknown {
  if (!isRecord(item) || (!Object.hasOwn(item, "id") && item.role !== "system")) return item;
  const copy = { ...item };
  // Nothing is stored (store: false): an id of an earlier reply's item points at nothing.
  delete copy.id;
  if (copy.role === "system") copy.role = "developer";
  return copy;
}

function normalizeInput(input: unknown): unknown {
  if (typeof input === "string") return [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }];
  if (!Array.isArray(input)) return input;
  // A reference to a stored item cannot be resolved either.
  return input.filter((item) => !(isRecord(item) && item.type === "item_reference")).map(inputItem);
}

/**
 * A Responses-API body (as the AI SDK sends it) made into what the SIWC backend takes, or the first
 * first thing it would refuse (image generation first). `store: false` and `stream: true` always; a string `input` becomes one
 * user message and `system` items `developer` ones; the server's instructions as on the device
 * route; the tier and effort headers applied. A refused field that is `null` is only left out (it
 * asks for nothing). The caller's body is not changed.
 */
export function prepareSiwcResponsesBody(body: Record<string, unknown> & { model: string }, options: SiwcBodyOptions = {}): Prepared {
  const imageGeneration = imageGenerationRefusal(body.tools);
  if (imageGeneration) return imageGeneration;
  for (const field of SIWC_REFUSED_FIELDS) {
    if (body[field] === undefined || body[field] === null) continue;
    return refuse(field, `\`${field}\` is not accepted with Sign in with ChatGPT. Leave it out and try again.`);
  }
  const tools = toolRefusal(body.tools);
  if (tools) return tools;

  const out: Record<string, unknown> & { model: string } = { ...body };
  for (const field of SIWC_REFUSED_FIELDS) delete out[field];
  out.store = false;
  out.stream = true;
  const serverInstructions = options.instructions ?? DEFAULT_INSTRUCTIONS;
  const own = typeof body.instructions === "string" && body.instructions.trim() !== "" ? body.instructions : undefined;
  out.instructions = options.instructionsMode === "enforce" ? serverInstructions : (own ?? serverInstructions);
  out.input = normalizeInput(body.input);
  if (options.instructionsMode === "enforce" && own !== undefined && own !== serverInstructions) {
    const asMessage = { type: "message", role: "developer", content: [{ type: "input_text", text: own }] };
    out.input = [asMessage, ...(Array.isArray(out.input) ? out.input : [])];
  }
  const tier = options.serviceTier ?? body.service_tier;
  const mapped = typeof tier === "string" ? toBackendServiceTier(tier) : undefined;
  if (mapped === undefined) delete out.service_tier;
  else out.service_tier = mapped;
  if (options.reasoningEffort !== undefined) {
    const existing = isRecord(out.reasoning) ? out.reasoning : {};
    const summary = typeof existing.summary === "string" ? existing.summary : "auto";
    out.reasoning = { ...existing, effort: options.reasoningEffort, summary };
  }
  return { ok: true, body: out };
}

/**
 * POSTs a prepared body to `{apiBase}/responses` with the bearer token only (no account header,
 * no Codex headers) and returns the reply unconsumed, whatever its status. Throws only
 * `network_error`; an abort by the caller's signal is rethrown as is.
 */
export function postSiwcResponses(
  config: UpstreamConfig,
  apiBase: string,
  accessToken: string,
  body: Record<string, unknown>,
  options: UpstreamCallOptions = {},
): Promise<Response> {
  return fetchUpstreamStream(
    config,
    `${apiBase}/responses`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, accept: "text/event-stream", "content-type": "application/json" },
      body: JSON.stringify(body),
    },
    "Responses request",
    options,
  );
}
