import type { ChatUIMessage } from "./chat-turns";
import type { TranscriptLine } from "./realtime-transcript";

/** Something the agent did during a call (agentActionText), and where in the transcript it happened. */
export interface VoiceAgentAction {
  /** The line that was last when it happened, words or not yet (a request still being transcribed); null: before anything was said. */
  afterLineId: string | null;
  /** The last line with words at that moment: the place when `afterLineId` never got any words and was left out. */
  orAfterLineId: string | null;
  text: string;
}

/**
 * An action the agent just finished, placed after the turn that caused it: the person's request
 * may still be being transcribed (its line has no words yet, as the agent often starts first), so
 * the place is the latest line, not the latest line with words.
 */
export function agentActionAt(lines: readonly TranscriptLine[], text: string): VoiceAgentAction {
  return { afterLineId: lines.at(-1)?.id ?? null, orAfterLineId: lines.findLast((line) => line.text.trim() !== "")?.id ?? null, text };
}

/**
 * A finished call as chat messages, so the conversation keeps what was said by voice (each marked
 * as such) and what the agent did, each action after the line it followed (after the last line
 * with words before it when that line had none and was left out, at the end when there is none).
 */
export function transcriptToMessages(lines: TranscriptLine[], callId: string, actions: VoiceAgentAction[] = []): ChatUIMessage[] {
  const lineIds = new Set(lines.map((line) => line.id));
  const numbered = actions.map((action, index) => ({
    afterLineId: action.afterLineId === null || lineIds.has(action.afterLineId) ? action.afterLineId : action.orAfterLineId,
    message: {
      id: `voice-${callId}-action-${index}`,
      role: "assistant",
      metadata: { source: "voice", agentAction: true },
      parts: [{ type: "text", text: action.text }],
    } satisfies ChatUIMessage,
  }));
  const after = (lineId: string | null) => numbered.filter((action) => action.afterLineId === lineId).map((action) => action.message);
  return [
    ...after(null),
    ...lines.flatMap((line, index): ChatUIMessage[] => [
      { id: `voice-${callId}-${index}`, role: line.role, metadata: { source: "voice" }, parts: [{ type: "text", text: line.text }] },
      ...after(line.id),
    ]),
    ...numbered.filter((action) => action.afterLineId !== null && !lineIds.has(action.afterLineId)).map((action) => action.message),
  ];
}
