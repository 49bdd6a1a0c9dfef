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
const FLEX_TIER = {
  id: "flex",
  name: "Flex",
  description: "Lower priority processing; may be slower at busy times.",
};

const LEVELS: Record<string, { effort: string; description: string }> = {
  none: { effort: "none", description: "No extra reasoning; fastest answers" },
  low: { effort: "low", description: "Fast responses with lighter reasoning" },
  medium: { effort: "medium", description: "Balances speed and reasoning depth for everyday tasks" },
  high: { effort: "high", description: "Greater reasoning depth for complex problems" },
  xhigh: { effort: "xhigh", description: "Extra high reasoning depth for the hardest problems" },
};

function levels(...efforts: string[]) {
  return efforts.map((effort) => LEVELS[effort]!);
}

const COMMON = {
  shell_type: "shell_command",
  supported_in_api: true,
  upgrade: null,
  base_instructions: "You are Codex, a coding agent based on GPT-5.5. You and the user share the same workspace.",
  supports_reasoning_summaries: true,
  support_verbosity: true,
  default_verbosity: "low",
  apply_patch_tool_type: "freeform",
  truncation_policy: { mode: "tokens", limit: 10_000 },
  supports_parallel_tool_calls: true,
  effective_context_window_percent: 95,
  experimental_supported_tools: [] as string[],
  input_modalities: ["text", "image"],
  minimal_client_version: "0.150.0",
};

/** The account's catalog, as the backend lists it (ordered as the backend stores it, not by priority). */
const CATALOG: readonly CatalogEntry[] = [
  {
    ...COMMON,
    slug: "gpt-5.5-mini",
    display_name: "GPT-5.5-Mini",
    description: "Smaller, faster and cheaper: for quick questions and light tasks.",
    visibility: "list",
    priority: 3,
    default_reasoning_level: "medium",
    supported_reasoning_levels: levels("low", "medium", "high"),
    service_tiers: [],
    // Text only: the app must not offer images for this one.
    input_modalities: ["text"],
    context_window: 272_000,
    auto_compact_token_limit: 244_800,
    plans: ["free", "go", "plus", "pro", "team", "business", "enterprise", "edu"],
  },
  {
    ...COMMON,
    slug: "gpt-5.5",
    display_name: "GPT-5.5",
    description: "Frontier model for everyday work: broad knowledge and strong reasoning.",
    visibility: "list",
    priority: 1,
    default_reasoning_level: "medium",
    supported_reasoning_levels: levels("none", "low", "medium", "high", "xhigh"),
    service_tiers: [PRIORITY_TIER, FLEX_TIER],
    context_window: 400_000,
    auto_compact_token_limit: 360_000,
  },
  {
    ...COMMON,
    slug: "gpt-5.5-codex",
    display_name: "GPT-5.5-Codex",
    description: "Optimized for agentic coding: long tasks in a repository.",
    visibility: "list",
    priority: 2,
    default_reasoning_level: "medium",
    supported_reasoning_levels: levels("low", "medium", "high", "xhigh"),
    service_tiers: [PRIORITY_TIER],
    context_window: 400_000,
    auto_compact_token_limit: 360_000,
  },
  {
    ...COMMON,
    slug: "gpt-5.5-codex-internal",
    display_name: "GPT-5.5-Codex (internal)",
    description: "Internal variant; not shown in pickers.",
    visibility: "hide",
    priority: 10,
    default_reasoning_level: "medium",
    supported_reasoning_levels: levels("low", "medium", "high"),
    service_tiers: [],
    context_window: 400_000,
  },
  {
    ...COMMON,
    slug: "codex-auto-review",
    display_name: "Codex Auto Review",
    description: "Used by the client for automatic reviews.",
    visibility: "none",
    priority: 20,
    default_reasoning_level: "low",
    supported_reasoning_levels: levels("low", "medium"),
    service_tiers: [],
    context_window: 272_000,
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

/** Compare dotted versions numerically; NaN-free: a malformed version counts as older than everything. */
export function isVersionAtLeast(version: string | null | undefined, minimum: string): boolean {
  const parse = (v: string) => (/^\d+(\.\d+)*$/.test(v) ? v.split(".").map(Number) : null);
  const given = version ? parse(version.trim()) : null;
  const floor = parse(minimum) ?? [0];
  if (!given) return false;
  for (let i = 0; i < Math.max(given.length, floor.length); i++) {
    const a = given[i] ?? 0;
    const b = floor[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}
