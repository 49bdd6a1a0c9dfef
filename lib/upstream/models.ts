import "server-only";
import { z } from "zod";
import { backendHeaders, describeUpstreamFailure } from "./backend";
import { ProviderAuthError } from "./errors";
import { fetchUpstreamText, parseJsonOrUndefined, type UpstreamCallOptions } from "./http";
import type { BackendAuth, ModelInfo, UpstreamConfig } from "./types";
import { isVersionAtLeast } from "./version";

const modelsReplySchema = z.object({
  models: z.array(
    z.looseObject({
      slug: z.string().min(1),
      display_name: z.string().optional(),
      visibility: z.string().optional(),
      priority: z.number().optional(),
    }),
  ),
});

/**
 * The models this account may pick: only `visibility: "list"`, sorted by `priority` ascending
 * (models without a priority last). `client_version` is always sent: without a current one the
 * backend hides models. Throws `models_request_failed` (with status and body snippet) or
 * `network_error`.
 */
export async function fetchModels(
  config: UpstreamConfig,
  auth: BackendAuth,
  options: UpstreamCallOptions = {},
): Promise<ModelInfo[]> {
  const url = `${config.codexBaseUrl}/models?client_version=${encodeURIComponent(config.clientVersion)}`;
  const reply = await fetchUpstreamText(
    config,
    url,
    { method: "GET", headers: backendHeaders(config, auth, { Accept: "application/json" }) },
    "Models request",
    options,
  );
  if (!reply.ok) {
    throw new ProviderAuthError("models_request_failed", describeUpstreamFailure(reply.status, reply.text), {
      status: reply.status,
      body: reply.text,
    });
  }
  const parsed = modelsReplySchema.safeParse(parseJsonOrUndefined(reply.text));
  if (!parsed.success) {
    throw new ProviderAuthError("models_request_failed", "The models reply was malformed", {
      status: reply.status,
      body: reply.text,
    });
  }
  const listed = parsed.data.models
    .filter((model) => model.visibility === "list")
    .map((model) => ({ ...model, display_name: model.display_name ?? model.slug }) as ModelInfo);
  const rank = (model: ModelInfo) => model.priority ?? Number.POSITIVE_INFINITY;
  return listed.sort((a, b) => rank(a) - rank(b));
}

/**
 * What a chat UI needs to know about one model, from the upstream catalogue entry: sent by GET
 * /models as `modelDetails`, an extension beside the contract's `models: string[]` (docs/api.md).
 */
export interface ModelDetails {
  slug: string;
  displayName: string;
  /** Reasoning efforts the model accepts (empty when the catalogue does not say). */
  reasoningEfforts: string[];
  defaultReasoningEffort?: string;
  /** Service tier ids the model offers (e.g. `priority`, `flex`); empty when it has none. */
  serviceTiers: string[];
  /** `text`, `image`, …; `["text"]` when the catalogue does not say. */
  inputModalities: string[];
  /**
   * Set when this server cannot use the model although the account has it: its
   * `minimal_client_version` is above the client version we send (the backend would refuse it).
   */
  unavailable?: ModelUnavailable;
}

interface ModelUnavailable {
  reason: "client_version_outdated";
  /** The client version the model needs. */
  minimalClientVersion: string;
  /** A sentence for the person and the operator. */
  message: string;
}

/**
 * Efforts the catalogue lists that a direct /responses call may not send: the backend refuses
 * `ultra` there (Codex itself sends it as `max`, with sub-agents). Never offered to our callers.
 */
const CODEX_ONLY_EFFORTS: readonly string[] = ["ultra"];

/** What a chat UI needs about one catalogue entry, judged against the client version this server sends. */
export function toModelDetails(model: ModelInfo, clientVersion: string): ModelDetails {
  const strings = (values: unknown[] | undefined) => (values ?? []).filter((value): value is string => typeof value === "string");
  const details: ModelDetails = {
    slug: model.slug,
    displayName: model.display_name || model.slug,
    reasoningEfforts: strings(model.supported_reasoning_levels?.map((level) => level?.effort)).filter(
      (effort) => !CODEX_ONLY_EFFORTS.includes(effort),
    ),
    defaultReasoningEffort: typeof model.default_reasoning_level === "string" ? model.default_reasoning_level : undefined,
    serviceTiers: strings(model.service_tiers?.map((tier) => tier?.id)),
    inputModalities: Array.isArray(model.input_modalities) ? strings(model.input_modalities) : ["text"],
  };
  const minimum = model.minimal_client_version;
  if (typeof minimum === "string" && !isVersionAtLeast(clientVersion, minimum)) {
    details.unavailable = {
      reason: "client_version_outdated",
      minimalClientVersion: minimum,
      message:
        `${details.displayName} needs client version ${minimum}; this server sends ${clientVersion}. ` +
        "The operator can raise LWC_CLIENT_VERSION.",
    };
  }
  return details;
}
