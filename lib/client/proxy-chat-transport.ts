import { openai } from "@ai-sdk/openai";
import { convertToModelMessages, streamText, type ChatTransport, type UIMessage, type UIMessageChunk } from "ai";
import { encodeChatError } from "./chat-error";
import { documentToModelPart } from "./document-attachments";
import { messagesToSend } from "./request-messages";
import type { ProviderProxy } from "./provider-proxy";

export interface ProxyChatTransportOptions {
  provider: ProviderProxy;
  /** Used when a request's body carries no `model`. */
  defaultModel?: string;
}

type SendOptions = Parameters<ChatTransport<UIMessage>["sendMessages"]>[0];

function headersToRecord(headers: SendOptions["headers"]): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  return { ...headers };
}

function isTrue(body: SendOptions["body"], name: "generateImage" | "leaveOutImages" | "continueAnswer" | "webSearch"): boolean {
  return (body as Record<string, unknown> | undefined)?.[name] === true;
}

function readModel(body: SendOptions["body"], fallback: string | undefined): string {
  const model = (body as { model?: unknown } | undefined)?.model;
  if (typeof model === "string" && model.length > 0) return model;
  if (fallback) return fallback;
  throw new Error("No model chosen for this chat request.");
}

/**
 * A useChat transport that runs the model call in the browser: streamText talks to the provider
 * proxy (`{basePath}/responses`), and the result is handed to useChat as a UI message stream.
 * Per request, pass `{ headers, body }` from chatRequestOptions to sendMessage/regenerate: the model,
 * and whether to make a picture, leave images out (a text-only model) or continue the last answer.
 * Stopping the chat aborts the fetch, and the server then cancels the upstream request.
 */
export class ProxyChatTransport implements ChatTransport<UIMessage> {
  private readonly provider: ProviderProxy;
  private readonly defaultModel?: string;

  constructor(options: ProxyChatTransportOptions) {
    this.provider = options.provider;
    this.defaultModel = options.defaultModel;
  }

  async sendMessages({ messages, abortSignal, headers, body }: SendOptions): Promise<ReadableStream<UIMessageChunk>> {
    // "Make a picture": the provider's image_generation tool, forced, streaming two partial images.
    const imageTools = isTrue(body, "generateImage")
      ? {
          tools: { image_generation: openai.tools.imageGeneration({ outputFormat: "png", partialImages: 2 }) },
          toolChoice: { type: "tool" as const, toolName: "image_generation" as const },
        }
      : {};
    // "Search the web": the backend's web_search tool, live, as Codex sends it (docs/upstream.md#web-search).
    const webSearch = isTrue(body, "webSearch");
    const searchTools = webSearch ? { web_search: openai.tools.webSearch({ externalWebAccess: true }) } : undefined;
    const model = readModel(body, this.defaultModel);
    const result = streamText({
      ...imageTools,
      ...(searchTools ? { tools: { ...("tools" in imageTools ? imageTools.tools : {}), ...searchTools } } : {}),
      model: this.provider(model),
      // A failed turn stays on screen (to edit, retry or remove) but is never sent again; a text-only
      // model gets the conversation without its images; Continue asks the model to carry on.
      // Attached documents (data-document parts) reach the model as quoted text with the file's name.
      messages: await convertToModelMessages(
        messagesToSend(messages, { leaveOutImages: isTrue(body, "leaveOutImages"), continueAnswer: isTrue(body, "continueAnswer") }),
        { convertDataPart: documentToModelPart },
      ),
      abortSignal,
      headers: headersToRecord(headers),
      // Retrying would spend the per-session rate limit on a request that already failed.
      maxRetries: 0,
      providerOptions: {
        openai: {
          // The backend is stateless: nothing is stored, reasoning travels encrypted between turns.
          store: false,
          reasoningSummary: "auto",
          include: ["reasoning.encrypted_content"],
          // The answer's url_citation annotations (with titles) become its sources, not the search's bare URLs.
          ...(webSearch ? { includeWebSearchSources: false } : {}),
        },
      },
      // Errors reach the UI through the stream below; the default handler would also log them.
      onError: () => {},
    });
    // The answer names its model and when it started (exports show both).
    const startedAt = Date.now();
    return result.toUIMessageStream({
      sendReasoning: true,
      sendSources: true,
      onError: encodeChatError,
      messageMetadata: ({ part }) => (part.type === "start" ? { model, createdAt: startedAt } : undefined),
    });
  }

  async reconnectToStream(): Promise<ReadableStream<UIMessageChunk> | null> {
    // The stream lives in this tab only; there is nothing to resume after a reload.
    return null;
  }
}
