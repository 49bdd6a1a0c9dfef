import type { ChatErrorInfo } from "./chat-error";
import type { UsageSnapshot } from "./usage-headers";

/** What the message box says while it is empty: why nothing can be sent yet, or the invitation to type. */
export function composerPlaceholder(state: { chatOff: boolean; models: "loading" | "ready" | "error"; modelCount: number }): string {
  if (state.chatOff) return "Chat is off until plan usage is enabled";
  if (state.models === "loading") return "Loading models…";
  if (state.models === "error") return "Models couldn't be loaded";
  if (state.modelCount === 0) return "No models are available for this account";
  return "Ask anything";
}

/**
 * The usage the header's meter shows. One source of truth for the reset time: while the latest turn
 * failed on the usage limit, the meter shows the window full until the reset that failure
 * reported, the same one the alert shows.
 */
export function usageShown(usage: UsageSnapshot | undefined, latestFailure: ChatErrorInfo | undefined): UsageSnapshot | undefined {
  const resetsAt = latestFailure?.code === "usage_limit" ? latestFailure.usageLimit?.resetsAt : undefined;
  if (resetsAt === undefined) return usage;
  return { ...usage, primary: { usedPercent: 100, windowMinutes: usage?.primary?.windowMinutes, resetsAt } };
}
