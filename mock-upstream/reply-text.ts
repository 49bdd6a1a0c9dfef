import { DEFAULT_INSTRUCTIONS } from "@/lib/upstream/responses";
import { isRecord } from "./http-util";
import { stripMarkers } from "./faults";
import { describeReceivedImages, imagesInLastUserMessage } from "./images-in";

const SUMMARY_SOURCE_MAX_CHARS = 60;
const INSTRUCTIONS_QUOTE_MAX_CHARS = 80;

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part): part is Record<string, unknown> => isRecord(part) && part.type === "input_text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join("\n");
}

function isUserMessage(item: Record<string, unknown>): boolean {
  return item.role === "user" && (item.type === undefined || item.type === "message");
}

/** Raw text of every user message, in order (markers still in). */
function userTexts(input: readonly Record<string, unknown>[]): string[] {
  return input.filter(isUserMessage).map((item) => contentText(item.content));
}

/** Raw text of the last user message (markers still in), or "" when there is none. */
export function lastUserText(input: unknown): string {
  if (!Array.isArray(input)) return typeof input === "string" ? input : "";
  return userTexts(input.filter(isRecord)).at(-1) ?? "";
}

/** Every text in the input, for finding `[[mock:...]]` markers. */
function allInputText(input: unknown): string {
  if (!Array.isArray(input)) return typeof input === "string" ? input : "";
  return input.filter(isRecord).map((item) => contentText(item.content)).join("\n");
}

/** `You said: "<last>".` plus ` Earlier you said: "<first>".` when there were earlier user messages. */
export function replyFor(input: readonly Record<string, unknown>[]): string {
  const texts = userTexts(input).map(stripMarkers);
  const last = texts.at(-1) ?? "";
  let reply = `You said: "${last}".`;
  if (texts.length > 1) reply += ` Earlier you said: "${texts[0]}".`;
  return reply + describeReceivedImages(imagesInLastUserMessage(input));
}

/** Instructions that ask for a conversation's name: what a chat app sends to title a conversation. */
const TITLE_REQUEST = /\bshort title\b/i;
const TITLE_MAX_WORDS = 6;

/** Whether the request asks for a title: in its instructions, or in a developer or system message (enforced server instructions come first). */
function asksForTitle(instructions: string, input: readonly Record<string, unknown>[]): boolean {
  const guidance = input.filter((item) => item.role === "developer" || item.role === "system").map((item) => contentText(item.content));
  return [instructions, ...guidance].some((text) => TITLE_REQUEST.test(text));
}

/**
 * What a model answers when asked for a short title: the first question's first words (at most
 * six, of its first line, without end punctuation, first letter capitalised); undefined for any
 * other request.
 */
export function titleReplyFor(instructions: string, input: readonly Record<string, unknown>[]): string | undefined {
  if (!asksForTitle(instructions, input)) return undefined;
  const first = stripMarkers(userTexts(input)[0] ?? "").trim().split("\n")[0] ?? "";
  const words = first.split(/\s+/).filter(Boolean).slice(0, TITLE_MAX_WORDS).join(" ").replace(/[.,;:!?]+$/, "");
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : "Conversation";
}

/**
 * ` Instructions I got: "<start>".` when the instructions are not the proxy's default (nor empty, as
 * the codex executable sends them), so a changed system prompt shows in the demo's replies. One
 * line, at most 80 characters quoted.
 */
export function instructionsNote(instructions: string): string {
  const oneLine = instructions.replace(/\s+/g, " ").trim();
  if (oneLine === "" || oneLine === DEFAULT_INSTRUCTIONS) return "";
  const quoted = oneLine.length > INSTRUCTIONS_QUOTE_MAX_CHARS ? `${oneLine.slice(0, INSTRUCTIONS_QUOTE_MAX_CHARS - 1).trimEnd()}…` : oneLine;
  return ` Instructions I got: "${quoted}"`;
}

export function reasoningSummaryFor(input: readonly Record<string, unknown>[]): string {
  const last = userTexts(input).map(stripMarkers).at(-1) ?? "";
  return `Thinking about: ${last.slice(0, SUMMARY_SOURCE_MAX_CHARS)}`;
}

/** One word (with the whitespace after it) per piece; the pieces join back to the text exactly. */
export function wordPieces(text: string): string[] {
  const pieces = text.match(/\s*\S+\s*/g) ?? [];
  return pieces.length > 0 ? pieces : [text];
}

interface MockUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/**
 * Deterministic token counts: input = ceil(characters of instructions + all input text / 4),
 * output = words of the reply + reasoning tokens (words of the summary x 4, 0 without reasoning).
 */
export function usageFor(instructions: string, input: readonly Record<string, unknown>[], reply: string, summary: string | null, reasoned: boolean): MockUsage {
  const inputChars = instructions.length + allInputText(input).length;
  const inputTokens = Math.max(1, Math.ceil(inputChars / 4));
  const reasoningTokens = reasoned ? Math.max(1, wordPieces(summary ?? "thinking").length) * 4 : 0;
  const outputTokens = wordPieces(reply).length + reasoningTokens;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: inputTokens + outputTokens,
  };
}
