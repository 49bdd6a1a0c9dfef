import { z } from "zod";
import { providerProxyErrorFromResponse, ProviderProxyError } from "./provider-proxy-error";
import { createResponseMetadataStore, type ResponseMetadataStore } from "./response-metadata-store";
import { normalizeBasePath } from "@/lib/shared/base-path";
import type { ModelDetails } from "@/lib/upstream/models";

export interface ProviderProxyOptions {
  /** Where the session service is mounted. Relative paths resolve against the page. Default `/api/provider`. */
  basePath?: string;
  /** The fetch to send requests with (default: the global fetch). Credentials are always included. */
  fetch?: typeof fetch;
  /** Extra headers sent with every call. */
  headers?: Record<string, string>;
}

/**
 * The provider proxy's side that needs no AI SDK (provider-proxy.ts adds the model on top): the
 * fetch that carries the session cookie, the model list and the replies' usage headers. The chat
 * screen starts with this and downloads the AI SDK's OpenAI provider at its first message.
 */
export interface ProxyClient {
  readonly basePath: string;
  /** Sends with the session cookie, without an Authorization header; records /responses replies' headers. */
  fetch: typeof fetch;
  /** GET `{basePath}/models`: the slugs the signed-in account can use. Throws ProviderProxyError (401 = signed out). */
  listModels(options?: { signal?: AbortSignal }): Promise<string[]>;
  /**
   * The same call, with what the server says about each model (the `modelDetails` extension):
   * names, reasoning efforts, service tiers, input modalities, and `unavailable` for a model the
   * account has that this server cannot use yet (listed, so a picker can say why). A server without
   * the extension yields entries that only know their slug.
   */
  listModelDetails(options?: { signal?: AbortSignal }): Promise<ModelDetails[]>;
  /** Usage and fast-tier fallback headers of the latest /responses replies. */
  readonly responseMetadata: ResponseMetadataStore;
}

const modelDetailsSchema = z.object({
  slug: z.string(),
  displayName: z.string(),
  reasoningEfforts: z.array(z.string()),
  defaultReasoningEffort: z.string().optional(),
  serviceTiers: z.array(z.string()),
  inputModalities: z.array(z.string()),
  unavailable: z
    .object({ reason: z.literal("client_version_outdated"), minimalClientVersion: z.string(), message: z.string() })
    .optional(),
});

const modelListSchema = z.object({ models: z.array(z.string()), modelDetails: z.array(modelDetailsSchema).optional() });

/** A model the server described only by its slug: no limits known, so nothing is hidden. */
function slugOnlyDetails(slug: string): ModelDetails {
  return { slug, displayName: slug, reasoningEfforts: [], serviceTiers: [], inputModalities: ["text"] };
}

function requestUrl(input: RequestInfo | URL): string {
  if (typeof input === "string") return input;
  if (input instanceof URL) return input.href;
  return input.url;
}

export function createProxyClient(options: ProviderProxyOptions = {}): ProxyClient {
  const basePath = normalizeBasePath(options.basePath);
  const baseFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const responseMetadata = createResponseMetadataStore();

  const sessionFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    headers.delete("authorization");
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (!headers.has(name)) headers.set(name, value);
    }
    const response = await baseFetch(input, { ...init, headers, credentials: "include" });
    if (requestUrl(input).endsWith("/responses")) responseMetadata.record(response.headers);
    return response;
  };

  const listModelDetails = async (listOptions: { signal?: AbortSignal } = {}): Promise<ModelDetails[]> => {
    const response = await sessionFetch(`${basePath}/models`, {
      method: "GET",
      headers: { accept: "application/json" },
      signal: listOptions.signal,
    });
    if (!response.ok) throw await providerProxyErrorFromResponse(response);
    const parsed = modelListSchema.safeParse(await response.json().catch(() => null));
    if (!parsed.success) {
      throw new ProviderProxyError({
        status: response.status,
        code: "invalid_models_response",
        message: "The model list had an unexpected shape.",
      });
    }
    const { models, modelDetails } = parsed.data;
    if (!modelDetails) return models.map(slugOnlyDetails);
    // The usable models, plus the ones the server marks unavailable, in the server's order.
    const usable = new Set(models);
    const described = modelDetails.filter((model) => usable.has(model.slug) || model.unavailable);
    const missing = models.filter((slug) => !described.some((model) => model.slug === slug)).map(slugOnlyDetails);
    return [...described, ...missing];
  };

  const listModels = async (listOptions: { signal?: AbortSignal } = {}): Promise<string[]> =>
    (await listModelDetails(listOptions)).filter((model) => !model.unavailable).map((model) => model.slug);

  return { basePath, fetch: sessionFetch, listModels, listModelDetails, responseMetadata };
}
