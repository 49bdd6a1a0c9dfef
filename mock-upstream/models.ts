import clientVersionFile from "@/lib/upstream/client-version.json" with { type: "json" };
import type { ModelInfo } from "@/lib/upstream/types";

interface CatalogEntry extends ModelInfo {
  /** Plans that may use the model; undefined = every plan but "free". */
  plans?: readonly string[];
}

const PRIORITY_TIER = {
  id: "priority",
  name: "Fast",
  description: "Faster responses; uses your plan's usage limits at a higher rate.",
};

const LEVELS: Record<string, { effort: string; description: string }> = {
  none: { effort: "none", description: "No extra reasoning; fastest answers" },
  minimal: { effort: "minimal", description: "Very little reasoning; fastest answers" },
  low: { effort: "low", description: "Fast responses with lighter reasoning" },
  medium: { effort: "medium", description: "Balances speed and reasoning depth for everyday tasks" },
  high: { effort: "high", description: "Greater reasoning depth for complex problems" },
  xhigh: { effort: "xhigh", description: "Extra high reasoning depth for the hardest problems" },
  max: { effort: "max", description: "The deepest reasoning the model offers" },
  ultra: { effort: "ultra", description: "Maximum reasoning with proactive help from sub-agents (Codex only)" },
};

function levels(...efforts: string[]) {
  return efforts.map((effort) => LEVELS[effort]!);
}

const NEWEST_LEVELS = levels("low", "medium", "high", "xhigh", "max", "ultra");

/** One minor release above ours: the mock always holds a model that our pinned version cannot use yet. */
function nextMinor(version: string): string {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return `${major}.${minor + 1}.0`;
}

const COMMON = {
  shell_type: "shell_command",
  supported_in_api: true,
  upgrade: null,
  base_instructions: "You are Codex, a coding agent. You and the user share the same workspace.",
  supports_reasoning_summaries: true,
  support_verbosity: true,
  default_verbosity: "low",
  apply_patch_tool_type: "freeform",
  truncation_policy: { mode: "tokens", limit: 10_000 },
  supports_parallel_tool_calls: true,
  effective_context_window_percent: 95,
  experimental_supported_tools: [] as string[],
  web_search_tool_type: "text_and_image",
  input_modalities: ["text", "image"],
  context_window: 272_000,
  auto_compact_token_limit: 244_800,
  service_tiers: [PRIORITY_TIER],
  // As the pinned codex's catalog has it: every current model speaks the "responses lite" dialect
  // (docs/upstream.md); the older ones below set it to false.
  use_responses_lite: true,
};

/**
 * The account's catalog, as the backend lists it (ordered as the backend stores it, not by
 * priority). Slugs, `minimal_client_version`, priorities and efforts follow the catalog built into
 * codex 0.169.0 (0.171.0's adds gpt-6.2-sol and gpt-6.2-astra: docs/upstream.md); `gpt-7-sol` and
 * `gpt-5.4-mini` are the mock's own.
 */
const CATALOG: readonly CatalogEntry[] = [
  {
    ...COMMON,
    slug: "gpt-5.4-mini",
    display_name: "GPT-5.4-Mini",
    description: "Smaller, faster and cheaper: for quick questions and light tasks.",
    visibility: "list",
    priority: 20,
    minimal_client_version: "0.98.0",
    default_reasoning_level: "medium",
    // The one model that still takes `none` and `minimal`.
    supported_reasoning_levels: levels("none", "minimal", "low", "medium", "high"),
    service_tiers: [],
    // Text only: the app must not offer images for this one.
    input_modalities: ["text"],
    use_responses_lite: false,
    plans: ["free", "go", "plus", "pro", "team", "business", "enterprise", "edu"],
  },
  {
    ...COMMON,
    slug: "gpt-5.5",
    display_name: "GPT-5.5",
    description: "The previous generation's frontier model: broad knowledge and strong reasoning.",
    visibility: "list",
    priority: 13,
    minimal_client_version: "0.124.0",
    default_reasoning_level: "medium",
    supported_reasoning_levels: levels("low", "medium", "high", "xhigh"),
    use_responses_lite: false,
  },
  {
    ...COMMON,
    slug: "gpt-6.1-sol",
    display_name: "GPT-6.1 Sol",
    description: "The current default: frontier reasoning for everyday and hard work.",
    visibility: "list",
    priority: 1,
    minimal_client_version: "0.153.0",
    default_reasoning_level: "low",
    supported_reasoning_levels: NEWEST_LEVELS,
  },
  {
    ...COMMON,
    slug: "gpt-6-astra",
    display_name: "GPT-6 Astra",
    description: "Long, agentic tasks in a repository.",
    visibility: "list",
    priority: 2,
    minimal_client_version: "0.153.0",
    default_reasoning_level: "low",
    supported_reasoning_levels: NEWEST_LEVELS,
  },
  {
    ...COMMON,
    slug: "gpt-6-sol",
    display_name: "GPT-6 Sol",
    description: "Strong reasoning across the board.",
    visibility: "list",
    priority: 3,
    minimal_client_version: "0.155.0",
    default_reasoning_level: "medium",
    supported_reasoning_levels: NEWEST_LEVELS,
  },
  {
    ...COMMON,
    slug: "gpt-6-luna",
    display_name: "GPT-6 Luna",
    description: "Quick and capable for lighter work.",
    visibility: "list",
    priority: 4,
    minimal_client_version: "0.155.0",
    default_reasoning_level: "medium",
    supported_reasoning_levels: levels("low", "medium", "high", "xhigh", "max"),
  },
  {
    ...COMMON,
    slug: "gpt-7-sol",
    display_name: "GPT-7 Sol",
    description: "The newest model: released after our pinned Codex version.",
    visibility: "list",
    priority: 6,
    minimal_client_version: nextMinor(clientVersionFile.clientVersion),
    default_reasoning_level: "low",
    supported_reasoning_levels: NEWEST_LEVELS,
  },
  {
    ...COMMON,
    slug: "codex-auto-review",
    display_name: "Codex Auto Review",
    description: "Used by the client for automatic reviews; not shown in pickers.",
    visibility: "hide",
    priority: 43,
    minimal_client_version: "0.98.0",
    default_reasoning_level: "medium",
    supported_reasoning_levels: levels("low", "medium", "high", "xhigh", "max"),
    service_tiers: [],
  },
];

function availableTo(entry: CatalogEntry, plan: string): boolean {
  return entry.plans ? entry.plans.includes(plan) : plan !== "free";
}

/** Every model the plan may use (all visibilities), without our internal fields. */
export function modelsForPlan(plan: string): ModelInfo[] {
  return CATALOG.filter((entry) => availableTo(entry, plan)).map((entry) => {
    const info: ModelInfo = structuredClone(entry);
    delete info.plans;
    return info;
  });
}

export function findModelForPlan(slug: string, plan: string): ModelInfo | undefined {
  return modelsForPlan(plan).find((model) => model.slug === slug);
}
