import type { ChatUIMessage } from "./chat-turns";
import type { TranscriptLine } from "./realtime-transcript";

/** Something the agent did during a call (agentActionText), and the transcript line that was last when it happened. */
export interface VoiceAgentAction {
  /** null: before anything was said. */
  afterLineId: string | null;
  text: string;
}

/**
 * A finished call as chat messages, so the conversation keeps what was said by voice (each marked
 * as such) and what the agent did, each action after the line it followed (at the end when that
 * line had no words and was left out).
 */
export function transcriptToMessages(lines: TranscriptLine[], callId: string, actions: VoiceAgentAction[] = []): ChatUIMessage[] {
  const numbered = actions.map((action, index) => ({
    afterLineId: action.afterLineId,
    message: {
      id: `voice-${callId}-action-${index}`,
      role: "assistant",
      metadata: { source: "voice", agentAction: true },
      parts: [{ type: "text", text: action.text }],
    } satisfies ChatUIMessage,
  }));
  const after = (lineId: string | null) => numbered.filter((action) => action.afterLineId === lineId).map((action) => action.message);
  const lineIds = new Set(lines.map((line) => line.id));
  return [
    ...after(null),
    ...lines.flatMap((line, index): ChatUIMessage[] => [
      { id: `voice-${callId}-${index}`, role: line.role, metadata: { source: "voice" }, parts: [{ type: "text", text: line.text }] },
      ...after(line.id),
    ]),
    ...numbered.filter((action) => action.afterLineId !== null && !lineIds.has(action.afterLineId)).map((action) => action.message),
  ];
}
