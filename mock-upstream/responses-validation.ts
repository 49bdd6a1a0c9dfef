import type { ModelInfo } from "@/lib/upstream/types";
import type { ParsedBody } from "./http-util";
import { validateImageInputs } from "./images-in";
import { isRecord } from "./http-util";
import { isVersionAtLeast } from "@/lib/upstream/version";
import { findModelForPlan } from "./models";

/** Body fields the backend refuses outright (token caps and sampling knobs, server-side state). */
const UNSUPPORTED_PARAMETERS = [
  "max_output_tokens",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "frequency_penalty",
  "presence_penalty",
  "previous_response_id",
] as const;

const SUMMARY_MODES = ["auto", "concise", "detailed", "none"];

export interface ValidResponsesRequest {
  model: ModelInfo;
  /** `instructions`; in the lite dialect the first developer message's text. */
  instructions: string;
  /** The tools offered: `tools`, and those of `additional_tools` input items (the lite dialect). */
  tools: unknown[];
  input: Record<string, unknown>[];
  reasoningEffort: string;
  /** Null when the request asked for no summary (or no reasoning at all). */
  reasoningSummary: string | null;
  serviceTier: string | null;
  include: string[];
  body: Record<string, unknown>;
}

type ResponsesValidation = { ok: true; request: ValidResponsesRequest } | { ok: false; status: number; detail: string };

function reject(detail: string, status = 400): ResponsesValidation {
  return { ok: false, status, detail };
}

function quoteList(values: string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(", ")}, and ${quoted.at(-1)}` : (quoted[0] ?? "");
}

const NOT_PERSISTED = (id: string) =>
  `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`;

function validateInput(input: unknown, allowItemIds: boolean): string | undefined {
  if (!Array.isArray(input)) return "Input must be a list";
  for (const item of input) {
    if (!isRecord(item)) return "Invalid input item: expected an object.";
    if (item.type === "item_reference") return NOT_PERSISTED(String(item.id ?? ""));
    if (!allowItemIds && item.id !== undefined && item.id !== null) return NOT_PERSISTED(String(item.id));
    if (item.role === "system") return "System messages are not allowed";
    const isMessage = item.type === "message" || (item.type === undefined && "role" in item);
    if (isMessage) {
      if (!["user", "assistant", "developer"].includes(String(item.role))) return `Invalid value: '${String(item.role)}'. Supported values are: 'user', 'assistant', and 'developer'.`;
      if (typeof item.content !== "string" && !Array.isArray(item.content)) return "Invalid input message: content must be a string or a list.";
    }
  }
  return undefined;
}

/** The text of a message item's content (a string, or its `input_text` parts joined). */
function messageText(item: Record<string, unknown>): string {
  if (typeof item.content === "string") return item.content;
  if (!Array.isArray(item.content)) return "";
  return item.content.map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : "")).join("");
}

/**
 * The lite dialect's instructions: the first developer message of the input (codex sends it right
 * after the `additional_tools` item, in place of the top-level `instructions`).
 */
function liteInstructions(input: unknown): string | undefined {
  if (!Array.isArray(input)) return undefined;
  const first = input.find((item) => isRecord(item) && item.role === "developer" && item.type !== "additional_tools");
  return isRecord(first) ? messageText(first) : undefined;
}

function offeredTools(body: Record<string, unknown>): unknown[] {
  const tools = Array.isArray(body.tools) ? [...body.tools] : [];
  for (const item of Array.isArray(body.input) ? body.input : []) {
    if (isRecord(item) && item.type === "additional_tools" && Array.isArray(item.tools)) tools.push(...item.tools);
  }
  return tools;
}

interface ValidationOptions {
  /**
   * The codex executable's own requests (they carry `x-codex-turn-metadata`): it sends no
   * `instructions` (they come as the first developer message) and keeps item ids in the input.
   */
  codexClient?: boolean;
  /** The request's `version` header: a model whose `minimal_client_version` is above it is refused. */
  clientVersion?: string;
  /**
   * The request carried `X-OpenAI-Internal-Codex-Responses-Lite: true`: the instructions come as
   * the first developer message and the tools in an `additional_tools` input item.
   */
  lite?: boolean;
}

/** Efforts the catalog lists that a direct /responses call may not send: Codex sends `ultra` as `max`. */
const CATALOG_ONLY_EFFORTS = ["ultra"];

const NEWER_VERSION_NEEDED = (slug: string) =>
  `The '${slug}' model requires a newer version of Codex. Please upgrade to the latest app or CLI and try again.`;

/** Check a /responses body the way the ChatGPT-account backend does; the first problem wins. */
export function validateResponsesBody(parsed: ParsedBody, plan: string, options: ValidationOptions = {}): ResponsesValidation {
  if (parsed.kind !== "json" || !isRecord(parsed.value)) return reject("Invalid request body: expected a JSON object.");
  const body = parsed.value;
  for (const name of UNSUPPORTED_PARAMETERS) {
    if (name in body) return reject(`Unsupported parameter: ${name}`);
  }
  if (typeof body.model !== "string" || body.model.length === 0) return reject("Missing required parameter: 'model'.");
  if (body.store !== false) return reject("Store must be set to false");
  if (body.stream !== true) return reject("Stream must be set to true");
  const given = options.lite ? liteInstructions(body.input) : body.instructions;
  const instructions = options.codexClient && given === undefined ? "" : given;
  if (typeof instructions !== "string") return reject("Instructions are required");
  const model = findModelForPlan(body.model, plan);
  if (!model) return reject(`The '${body.model}' model is not supported when using Codex with a ChatGPT account.`);
  // A missing or malformed header counts as older than every gated model.
  const minimum = model.minimal_client_version;
  if (typeof minimum === "string" && !isVersionAtLeast(options.clientVersion, minimum)) return reject(NEWER_VERSION_NEEDED(model.slug));
  const inputProblem = validateInput(body.input, options.codexClient === true);
  if (inputProblem) return reject(inputProblem);
  const imageProblem = validateImageInputs(body.input as Record<string, unknown>[], {
    slug: model.slug,
    acceptsImages: (model.input_modalities ?? ["text"]).includes("image"),
  });
  if (imageProblem) return reject(imageProblem);

  const levels = (model.supported_reasoning_levels ?? [])
    .map((level) => level.effort)
    .filter((effort) => !CATALOG_ONLY_EFFORTS.includes(effort));
  let reasoningEffort = model.default_reasoning_level ?? "medium";
  let reasoningSummary: string | null = "auto";
  if (body.reasoning !== undefined && body.reasoning !== null) {
    if (!isRecord(body.reasoning)) return reject("Invalid type for 'reasoning': expected an object.");
    const { effort, summary } = body.reasoning;
    if (effort !== undefined && effort !== null) {
      if (typeof effort !== "string" || !levels.includes(effort)) {
        return reject(
          `Unsupported value: 'reasoning.effort' does not support '${String(effort)}' with the '${model.slug}' model. Supported values are: ${quoteList(levels)}.`,
        );
      }
      reasoningEffort = effort;
    }
    if (summary !== undefined && summary !== null) {
      if (typeof summary !== "string" || !SUMMARY_MODES.includes(summary)) {
        return reject(`Invalid value: '${String(summary)}'. Supported values are: ${quoteList(SUMMARY_MODES)}.`);
      }
      reasoningSummary = summary === "none" ? null : summary;
    }
  }
  if (reasoningEffort === "none") reasoningSummary = null;

  let serviceTier: string | null = null;
  if (body.service_tier !== undefined && body.service_tier !== null) {
    const offered = (model.service_tiers ?? []).map((tier) => tier.id);
    if (typeof body.service_tier !== "string" || !offered.includes(body.service_tier)) {
      return reject(`Unsupported service_tier: ${String(body.service_tier)} for model '${model.slug}'.`);
    }
    serviceTier = body.service_tier;
  }

  if (body.include !== undefined && body.include !== null) {
    if (!Array.isArray(body.include) || body.include.some((value) => typeof value !== "string")) {
      return reject("Invalid type for 'include': expected an array of strings.");
    }
  }
  const include = Array.isArray(body.include) ? (body.include as string[]) : [];

  return {
    ok: true,
    request: {
      model,
      instructions,
      tools: offeredTools(body),
      input: body.input as Record<string, unknown>[],
      reasoningEffort,
      reasoningSummary,
      serviceTier,
      include,
      body,
    },
  };
}
