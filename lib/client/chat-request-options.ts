import { REASONING_EFFORTS, type ReasoningEffort } from "@/lib/upstream/types";

export { REASONING_EFFORTS, type ReasoningEffort };

export const DEFAULT_REASONING_EFFORT: ReasoningEffort = "medium";

const REASONING_EFFORT_HEADER = "x-login-with-provider-reasoning-effort";
const SERVICE_TIER_HEADER = "x-login-with-provider-service-tier";

/** What the person chose for the next chat call. */
export interface ChatCallSettings {
  model: string;
  reasoningEffort: ReasoningEffort;
  /** Ask for the fast service tier; the proxy falls back to the default tier if the model refuses it. */
  fast: boolean;
  /** Ask for a picture (the image_generation tool) instead of a text answer. */
  generateImage?: boolean;
  /** The model reads text only: leave the conversation's images out of the request. */
  leaveOutImages?: boolean;
  /** Carry on the last (interrupted) answer instead of answering the last question. */
  continueAnswer?: boolean;
  /** Let the model search the web (the backend's web_search tool). */
  webSearch?: boolean;
}

/** What the transport reads from a request's body besides the model. */
interface ChatRequestBody {
  model: string;
  generateImage?: true;
  leaveOutImages?: true;
  continueAnswer?: true;
  webSearch?: true;
}

/** The per-request options for useChat's sendMessage/regenerate: headers for the proxy, the model in the body. */
export function chatRequestOptions(settings: ChatCallSettings): {
  headers: Record<string, string>;
  body: ChatRequestBody;
} {
  const headers: Record<string, string> = { [REASONING_EFFORT_HEADER]: settings.reasoningEffort };
  if (settings.fast) headers[SERVICE_TIER_HEADER] = "fast";
  const body: ChatRequestBody = { model: settings.model };
  if (settings.generateImage) body.generateImage = true;
  if (settings.leaveOutImages) body.leaveOutImages = true;
  if (settings.continueAnswer) body.continueAnswer = true;
  if (settings.webSearch) body.webSearch = true;
  return { headers, body };
}

export function isReasoningEffort(value: unknown): value is ReasoningEffort {
  return typeof value === "string" && (REASONING_EFFORTS as readonly string[]).includes(value);
}
