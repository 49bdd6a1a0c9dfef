import type { UIMessage } from "ai";
import type { TranscriptLine } from "./realtime-transcript";

/** A finished call's transcript as chat messages, so the conversation keeps what was said by voice. */
export function transcriptToMessages(lines: TranscriptLine[], callId: string): UIMessage[] {
  return lines.map((line, index) => ({
    id: `voice-${callId}-${index}`,
    role: line.role,
    metadata: { source: "voice" },
    parts: [{ type: "text", text: line.text }],
  }));
}
