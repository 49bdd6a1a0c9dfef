import { chatRequestOptions, REASONING_EFFORTS } from "./chat-request-options";
import type { ChatUIMessage } from "./chat-turns";
import { cleanTitle, titleMessages } from "./conversation-titles";
import { effortsFor } from "./model-capabilities";
import type { ModelDetails, ProviderProxy } from "./provider-proxy";

/**
 * The title call (lib/client/conversation-titles.ts says what it asks and how the answer is read),
 * in a module of its own: it needs the model code, which the chat screen downloads when used. It
 * calls the provider's model itself, not the AI SDK's generateText: the AI SDK's core is one module
 * the chat screen loads at first, so each of its functions this call used would come with it.
 */

/** What the title call asks for (the call's `instructions`). */
const TITLE_INSTRUCTIONS =
  "Write a short title (at most six words) for the conversation below: what it is about, in the language it is written in. " +
  "Answer with the title only: no quotes, no ending full stop, no Markdown.";

/** The least reasoning the model takes: a title needs none. */
function lowestEffort(model: ModelDetails) {
  const offered = effortsFor(model);
  return REASONING_EFFORTS.find((effort) => offered.includes(effort)) ?? offered[0]!;
}

/**
 * Asks `model` for the conversation's title through the proxy: one call, no retry, the least
 * reasoning, nothing stored upstream. Resolves with the cleaned title, or null when the answer
 * held none; rejects as any model call does (signed out, a limit, the network).
 */
export async function generateTitle(provider: ProviderProxy, model: ModelDetails, messages: readonly ChatUIMessage[], signal?: AbortSignal): Promise<string | null> {
  // One call, no retry: what generateText with maxRetries 0 would send, without generateText.
  const { content } = await provider(model.slug).doGenerate({
    prompt: titleMessages(messages).map(({ role, content: text }) => ({ role, content: [{ type: "text" as const, text }] })),
    headers: chatRequestOptions({ model: model.slug, reasoningEffort: lowestEffort(model), fast: false }).headers,
    abortSignal: signal,
    providerOptions: { openai: { store: false, instructions: TITLE_INSTRUCTIONS } },
  });
  const text = content.map((part) => (part.type === "text" ? part.text : "")).join("");
  return cleanTitle(text);
}
