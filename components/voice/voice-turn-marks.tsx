import type { UIMessage } from "ai";
import { textOf } from "@/lib/client/chat-turns";
import { WaveformIcon } from "./voice-icons";

/** "Voice" under a turn that was said in a voice call (its transcript), not typed. */
export function VoiceMark({ align = "start" }: { align?: "start" | "end" }) {
  return (
    <span data-testid="voice-mark" className={`inline-flex items-center gap-1 text-xs text-muted-foreground ${align === "end" ? "self-end" : ""}`}>
      <WaveformIcon className="size-3.5" />
      Voice
    </span>
  );
}

/** Something the agent did during a voice call (a tool call done, denied or failed), kept in the chat. */
export function AgentActionNote({ message }: { message: UIMessage }) {
  return (
    <div
      data-testid="agent-action"
      data-message-id={message.id}
      data-source="voice"
      className="flex items-start gap-2 self-start rounded-xl border border-border bg-muted px-3 py-2 text-[13px] leading-5 text-foreground [overflow-wrap:anywhere]"
    >
      <span className="shrink-0 font-semibold">Agent</span>
      <span dir="auto">{textOf(message)}</span>
    </div>
  );
}
