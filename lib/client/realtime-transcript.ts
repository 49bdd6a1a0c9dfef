import type { RealtimeServerEvent } from "./realtime-events";

/** One line of a voice call's transcript: what one side said in one turn. */
export interface TranscriptLine {
  /** The conversation item id from the events (or a local id for typed text). */
  id: string;
  role: "user" | "assistant";
  text: string;
  /** False while deltas are still arriving. */
  done: boolean;
  /** True for text the person typed rather than said. */
  typed?: boolean;
}

const USER_DELTA = new Set(["conversation.item.input_audio_transcription.delta"]);
const USER_DONE = new Set(["conversation.item.input_audio_transcription.completed", "conversation.item.input_audio_transcription.done"]);
// The beta names (`response.audio_transcript.*`) are still sent by some deployments.
const ASSISTANT_DELTA = new Set(["response.output_audio_transcript.delta", "response.audio_transcript.delta"]);
const ASSISTANT_DONE = new Set(["response.output_audio_transcript.done", "response.audio_transcript.done"]);

function upsert(lines: TranscriptLine[], id: string, role: TranscriptLine["role"], change: (line: TranscriptLine) => TranscriptLine): TranscriptLine[] {
  const index = lines.findIndex((line) => line.id === id);
  if (index === -1) return [...lines, change({ id, role, text: "", done: false })];
  const next = lines.slice();
  next[index] = change(lines[index]!);
  return next;
}

function itemId(event: RealtimeServerEvent): string | undefined {
  const id = event.item_id ?? event.response_id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The id of a spoken user item the service just added (`conversation.item.added` with `input_audio` content). */
function addedSpokenItemId(event: RealtimeServerEvent): string | undefined {
  if (event.type !== "conversation.item.added") return undefined;
  const item = event.item as { id?: unknown; role?: unknown; content?: unknown } | undefined;
  if (!item || item.role !== "user" || !Array.isArray(item.content)) return undefined;
  const spoken = item.content.some((part: { type?: unknown } | null) => part?.type === "input_audio");
  return spoken && typeof item.id === "string" && item.id !== "" ? item.id : undefined;
}

/**
 * Folds one data-channel event into the transcript. Pure: returns the same array when the event
 * is not about transcripts, so it can drive React state directly.
 */
export function applyTranscriptEvent(lines: TranscriptLine[], event: RealtimeServerEvent): TranscriptLine[] {
  // A spoken turn takes its place when the service adds it, not when its first transcribed words
  // arrive (they can come after text the person typed next). The line stays empty until then.
  const spokenId = addedSpokenItemId(event) ?? (event.type === "input_audio_buffer.committed" ? itemId(event) : undefined);
  if (spokenId !== undefined) {
    return lines.some((line) => line.id === spokenId) ? lines : [...lines, { id: spokenId, role: "user", text: "", done: false }];
  }
  const id = itemId(event);
  if (!id) return lines;
  if (USER_DELTA.has(event.type) || ASSISTANT_DELTA.has(event.type)) {
    const delta = text(event.delta);
    if (!delta) return lines;
    const role = USER_DELTA.has(event.type) ? "user" : "assistant";
    return upsert(lines, id, role, (line) => ({ ...line, text: line.text + delta }));
  }
  if (USER_DONE.has(event.type) || ASSISTANT_DONE.has(event.type)) {
    const role = USER_DONE.has(event.type) ? "user" : "assistant";
    const full = text(event.transcript);
    return upsert(lines, id, role, (line) => ({ ...line, text: full ?? line.text, done: true }));
  }
  return lines;
}

/** Adds a line for text the person typed into the call (the service does not echo it back as a transcript). */
export function appendTypedLine(lines: TranscriptLine[], id: string, typed: string): TranscriptLine[] {
  return [...lines, { id, role: "user", text: typed, done: true, typed: true }];
}

/** The lines worth keeping after the call: those with words in them. */
export function finishedTranscript(lines: TranscriptLine[]): TranscriptLine[] {
  return lines.filter((line) => line.text.trim() !== "").map((line) => ({ ...line, text: line.text.trim(), done: true }));
}
