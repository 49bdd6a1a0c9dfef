/**
 * An event the voice service sends over the `oai-events` data channel. The service follows the
 * Realtime API's event names (`session.created`, `response.output_audio_transcript.delta`,
 * `response.done`, `error`, ...); only `type` is guaranteed, the rest depends on the event.
 */
export interface RealtimeServerEvent {
  type: string;
  item_id?: string;
  response_id?: string;
  delta?: string;
  transcript?: string;
  [field: string]: unknown;
}

/** Parses one data-channel message; anything that is not a JSON object with a string `type` gives undefined. */
export function parseServerEvent(data: unknown): RealtimeServerEvent | undefined {
  if (typeof data !== "string") return undefined;
  try {
    const value: unknown = JSON.parse(data);
    if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
    return typeof (value as { type?: unknown }).type === "string" ? (value as RealtimeServerEvent) : undefined;
  } catch {
    return undefined;
  }
}

/** The two events that ask the service to answer typed text: add a user message, then request a response. */
export function typedMessageEvents(text: string): [Record<string, unknown>, Record<string, unknown>] {
  return [
    {
      type: "conversation.item.create",
      item: { type: "message", role: "user", content: [{ type: "input_text", text }] },
    },
    { type: "response.create" },
  ];
}
