import { sendJson } from "../http-util";
import { isVersionAtLeast } from "@/lib/upstream/version";
import { authenticate } from "./api-auth";
import type { SiwcHandler } from "./context";
import type { SiwcAccount, Workspace } from "./state";

export interface SiwcModel {
  slug: string;
  display_name: string;
  visibility: "list" | "hide";
  supported_in_api: boolean;
  minimal_client_version: string;
  default_reasoning_level: string;
  supported_reasoning_levels: { effort: string; description: string }[];
  context_window: number;
  input_modalities: string[];
  priority: number;
}

const LEVELS = [
  { effort: "low", description: "Fast responses with lighter reasoning" },
  { effort: "medium", description: "Balances speed and reasoning depth" },
  { effort: "high", description: "Greater reasoning depth for complex problems" },
];

/** A catalog entry as the control API takes it: the three fields the client reads, the rest defaulted. */
export type SiwcCatalogEntry = Pick<SiwcModel, "slug" | "display_name" | "visibility"> & Partial<SiwcModel>;

export function completeModel(entry: SiwcCatalogEntry): SiwcModel {
  return model(entry.slug, entry.display_name, entry.visibility, entry);
}

function model(slug: string, displayName: string, visibility: "list" | "hide", extra: Partial<SiwcModel> = {}): SiwcModel {
  return {
    slug,
    display_name: displayName,
    visibility,
    supported_in_api: true,
    minimal_client_version: "0.1.0",
    default_reasoning_level: "medium",
    supported_reasoning_levels: LEVELS,
    context_window: 272_000,
    input_modalities: ["text", "image"],
    priority: 0,
    ...extra,
  };
}

/** The default catalog, in the server's order (pro sees one more; the team workspace one less). */
export function defaultSiwcCatalog(account: Pick<SiwcAccount, "eligibility">, workspace: Workspace): SiwcModel[] {
  const models = [
    model("gpt-5.5", "GPT-5.5", "list", { priority: 1 }),
    model("gpt-5.5-mini", "GPT-5.5 mini", "list", { priority: 2 }),
    model("gpt-5.4", "GPT-5.4", "hide", { priority: 3 }),
    model("gpt-6.1-terra", "GPT-6.1 Terra", "list", { priority: 4, minimal_client_version: "0.160.0" }),
    model("codex-auto-review", "Codex auto review", "hide", { priority: 5, supported_in_api: false }),
  ];
  if (account.eligibility === "pro") models.splice(1, 0, model("gpt-5.5-pro", "GPT-5.5 Pro", "list", { priority: 1 }));
  return workspace === "team" ? models.filter((m) => m.slug !== "gpt-6.1-terra") : models;
}

/** GET /siwc/v1/models: `{models: [...]}`, Bearer required; `client_version` hides models newer than it. */
export const handleSiwcModels: SiwcHandler = async (siwc, call) => {
  const caller = await authenticate(siwc, call);
  if (!caller) return;
  const registration = siwc.state.registrations.get(caller.family.clientId);
  const all = siwc.catalog(caller.account, registration?.workspace ?? "personal");
  const clientVersion = call.url.searchParams.get("client_version");
  const models = clientVersion === null ? all : all.filter((m) => isVersionAtLeast(clientVersion, m.minimal_client_version));
  sendJson(call.response, 200, { models });
};
