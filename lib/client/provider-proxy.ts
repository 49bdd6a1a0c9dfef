import { createOpenAI } from "@ai-sdk/openai";
import { createProxyClient, type ProviderProxyOptions, type ProxyClient } from "./proxy-client";
import type { ModelDetails } from "@/lib/upstream/models";

export type { ModelDetails, ProviderProxyOptions };

type ResponsesModel = ReturnType<ReturnType<typeof createOpenAI>["responses"]>;

export interface ProviderProxy extends Omit<ProxyClient, "fetch"> {
  /** The Responses-API model for a slug; requests stream through `{basePath}/responses`. */
  (modelId: string): ResponsesModel;
  responses(modelId: string): ResponsesModel;
}

/** The AI SDK provider over a proxy client (its fetch, model list and usage headers). */
export function providerProxyFor(client: ProxyClient): ProviderProxy {
  // The dummy API key only satisfies the OpenAI provider; the client's fetch removes the
  // Authorization header it produces before the request leaves.
  const openai = createOpenAI({ baseURL: client.basePath, apiKey: "session-cookie", fetch: client.fetch });
  const provider = ((modelId: string) => openai.responses(modelId)) as ProviderProxy;
  Object.assign(provider, {
    responses: (modelId: string) => openai.responses(modelId),
    listModels: client.listModels,
    listModelDetails: client.listModelDetails,
    responseMetadata: client.responseMetadata,
    basePath: client.basePath,
  });
  return provider;
}

/**
 * An AI SDK provider whose Responses model talks to our session service instead of OpenAI.
 * The browser never holds a provider token: the session cookie identifies the login, and the
 * server injects the credentials.
 */
export function createProviderProxy(options: ProviderProxyOptions = {}): ProviderProxy {
  return providerProxyFor(createProxyClient(options));
}
