import { isFailedMessage, textOf, type ChatUIMessage } from "./chat-turns";
import type { ModelDetails } from "./provider-proxy";

/**
 * A short title for a conversation, asked of the model once its first answer is there (ChatGPT
 * names conversations the same way): one small call through the proxy, paid by the person's plan
 * like every other. The first question's first line stays the title until it arrives, and if it
 * never does. The call itself (lib/client/title-call.ts) downloads with the model code when first needed.
 */

/** How much of the conversation the call carries: enough to tell what it is about, little to pay for. */
const MESSAGE_MAX_CHARS = 1_000;
const CONVERSATION_MAX_CHARS = 4_000;
/** A title longer than this (a model that ignored the instructions) is cut at a word. */
const TITLE_MAX_CHARS = 80;

/** Names that mark a provider's small models. */
const SMALL_MODEL = /(?:^|[-_.\s])(?:nano|mini|small|lite)(?:$|[-_.\s])/i;

/**
 * The model the title is asked of: the smallest the account may use. Models say nothing of their
 * size, so one whose name says it is small (`…-mini`, `…-nano`) if there is one, else the last
 * usable one of the list, which the server orders best first (with LWC_ALLOWED_MODELS set, the list
 * holds only those).
 */
export function titleModel(models: readonly ModelDetails[]): ModelDetails | undefined {
  const usable = models.filter((model) => !model.unavailable);
  return usable.findLast((model) => SMALL_MODEL.test(model.slug) || SMALL_MODEL.test(model.displayName)) ?? usable.at(-1);
}

function shortened(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max).trimEnd()}…`;
}

/**
 * The conversation as the title call sends it: the person's messages and the answers (an agent's
 * actions in a voice call included), text only, each shortened, from the start until the budget is
 * spent; failed turns left out.
 */
export function titleMessages(messages: readonly ChatUIMessage[]): { role: "user" | "assistant"; content: string }[] {
  const sent: { role: "user" | "assistant"; content: string }[] = [];
  let budget = CONVERSATION_MAX_CHARS;
  for (const message of messages) {
    if ((message.role !== "user" && message.role !== "assistant") || isFailedMessage(message)) continue;
    const content = shortened(textOf(message), Math.min(MESSAGE_MAX_CHARS, budget));
    if (!content) continue;
    sent.push({ role: message.role, content });
    budget -= content.length;
    if (budget <= 0) break;
  }
  return sent;
}

/** Whether the conversation says enough for a title: a question with words in it (a picture-only answer still counts). */
export function canBeTitled(messages: readonly ChatUIMessage[]): boolean {
  return messages.some((message) => message.role === "user" && !isFailedMessage(message) && textOf(message).trim() !== "");
}

const WRAPPING_QUOTES = /^["'“”‘’«»„`]+|["'“”‘’«»„`]+$/g;

/**
 * The model's answer as a title: its first line, without a "Title:" label, Markdown marks,
 * wrapping quotes or a full stop; cut at a word when very long. Null when nothing is left.
 */
export function cleanTitle(answer: string): string | null {
  const line = answer
    .split("\n")
    .map((candidate) => candidate.trim())
    .find((candidate) => candidate !== "");
  if (!line) return null;
  let title = line
    .replace(/^#+\s*/, "")
    .replace(/^(?:\*\*|__)?title(?:\*\*|__)?\s*:\s*/i, "")
    .replace(/\*\*|__|`/g, "")
    .trim()
    .replace(WRAPPING_QUOTES, "")
    .replace(/[.。:;,]+$/, "")
    .replace(/\s+/g, " ")
    .trim();
  if (title.length > TITLE_MAX_CHARS) {
    const cut = title.slice(0, TITLE_MAX_CHARS);
    const space = cut.lastIndexOf(" ");
    title = `${(space > TITLE_MAX_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
  }
  return title || null;
}
