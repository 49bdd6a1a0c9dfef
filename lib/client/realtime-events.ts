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

/** The ChatGPT web voice transports (`wm`, `vp`, `vps`) speak a different dialect on the data channel. */
export const WEB_VOICE_TRANSPORTS: ReadonlySet<string> = new Set(["wm", "vp", "vps"]);

/** Web transports wrap every event as `{type: "data_message", data: "<json>"}`; anything else is returned as it is. */
export function unwrapWebEvent(event: RealtimeServerEvent): RealtimeServerEvent {
  if (event.type !== "data_message" || typeof event.data !== "string") return event;
  return parseServerEvent(event.data) ?? event;
}

export function wrapWebEvent(event: Record<string, unknown>): Record<string, unknown> {
  return { type: "data_message", data: JSON.stringify(event) };
}

/** Typed text on the web transports: one `relay_message` both adds the message and asks for the reply. */
export function webTypedMessageEvent(text: string): Record<string, unknown> {
  return { type: "relay_message", text };
}
