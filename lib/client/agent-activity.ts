import type { AgentEvent } from "./agent-voice";

/** One agent event in words, for the voice dialog's activity list; null for events it does not show. */
export function describeAgentEvent(event: AgentEvent): string | null {
  switch (event.type) {
    case "handoff":
      return `Asked the agent: “${event.transcript ?? ""}”`;
    case "tool.running":
      return `Running ${event.tool}…`;
    case "tool.pending_confirmation":
      return `${event.tool} is waiting for your approval`;
    case "tool.completed":
      if (event.approved === false) return `${event.tool}: denied, nothing was done`;
      return `${event.tool}: done`;
    case "tool.failed":
      return `${event.tool}: failed`;
    case "error":
      return `Error: ${event.message ?? "unknown"}`;
    default:
      return null;
  }
}

/**
 * What the chat keeps of a finished tool call (done, denied or failed), with what the person was
 * asked to review for it: "save_note (text: water the ferns): done". Null for any other event.
 */
export function agentActionText(event: AgentEvent, review?: Record<string, unknown>): string | null {
  if (event.type !== "tool.completed" && event.type !== "tool.failed") return null;
  const outcome = describeAgentEvent(event)!.slice(`${event.tool}: `.length);
  const details = Object.entries(review ?? {})
    .map(([name, value]) => `${name}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(", ");
  return `${event.tool}${details ? ` (${details})` : ""}: ${outcome}`;
}
