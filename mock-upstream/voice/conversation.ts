/**
 * What the mock voice says on the data channel, with OpenAI Realtime API (GA) event names.
 * On open: `session.created`, then one scripted turn (the user's transcript, then a spoken
 * assistant reply). A typed message (`conversation.item.create` with `input_text`, then
 * `response.create`) gets a spoken reply that repeats what it heard.
 */
import { randomBytes } from "node:crypto";

export const SCRIPTED_USER_TRANSCRIPT = "Hello, can you hear me?";
export const SCRIPTED_ASSISTANT_REPLY = "Hi! This is the mock voice. I can hear you, and you can type to me too.";
const MIN_SPEECH_MS = 900;

export type RealtimeEvent = { type: string } & Record<string, unknown>;

interface ConversationIo {
  send(event: RealtimeEvent): void;
  /** Turn the voice on or off. */
  setSpeaking(speaking: boolean): void;
}

export function replyTo(text: string): string {
  return `I heard you say: ${text}`;
}

function newId(prefix: string): string {
  return `${prefix}_${randomBytes(10).toString("hex")}`;
}

function typedText(event: RealtimeEvent): string | undefined {
  const item = event.item as { type?: unknown; role?: unknown; content?: unknown } | undefined;
  if (!item || item.type !== "message" || item.role !== "user" || !Array.isArray(item.content)) return undefined;
  const texts = item.content
    .filter((part): part is { type: string; text: string } => part?.type === "input_text" && typeof part.text === "string")
    .map((part) => part.text);
  return texts.length > 0 ? texts.join(" ") : undefined;
}

export class Conversation {
  private closed = false;
  private timers = new Set<NodeJS.Timeout>();
  /** Replies are spoken one after another. */
  private queue: Promise<void> = Promise.resolve();
  private pendingText: string | undefined;

  constructor(
    private readonly io: ConversationIo,
    private readonly session: Record<string, unknown>,
    /** Time per spoken word; a reply speaks for at least MIN_SPEECH_MS. */
    private readonly wordMs: number,
  ) {}

  start(): void {
    this.io.send({ type: "session.created", event_id: newId("event"), session: { id: newId("sess"), object: "realtime.session", ...this.session } });
    this.enqueue(async () => {
      if (!(await this.wait(200))) return;
      await this.userTurn(SCRIPTED_USER_TRANSCRIPT);
      await this.assistantTurn(SCRIPTED_ASSISTANT_REPLY);
    });
  }

  receive(event: RealtimeEvent): void {
    if (this.closed) return;
    switch (event.type) {
      case "session.update":
        this.io.send({ type: "session.updated", event_id: newId("event"), session: { ...this.session, ...(event.session as object) } });
        return;
      case "conversation.item.create": {
        const text = typedText(event);
        if (text === undefined) return;
        this.pendingText = text;
        const item = { id: newId("item"), object: "realtime.item", type: "message", role: "user", status: "completed", content: [{ type: "input_text", text }] };
        this.io.send({ type: "conversation.item.added", event_id: newId("event"), previous_item_id: null, item });
        this.io.send({ type: "conversation.item.done", event_id: newId("event"), previous_item_id: null, item });
        return;
      }
      case "response.create": {
        const heard = this.pendingText;
        this.pendingText = undefined;
        this.enqueue(() => this.assistantTurn(heard === undefined ? "I am listening." : replyTo(heard)));
        return;
      }
      case "relay_message":
        // The ChatGPT web transports' typed text: one message, answered at once.
        if (typeof event.text === "string") this.enqueue(() => this.assistantTurn(replyTo(event.text as string)));
        return;
      default:
        return;
    }
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.io.setSpeaking(false);
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch(() => undefined);
  }

  /** Resolves true after `ms`, or false once the conversation is closed. */
  private wait(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve(!this.closed);
      }, ms);
      this.timers.add(timer);
    });
  }

  /**
   * The person asked for work in the call (an agent handoff cue): their spoken item at once, and its
   * transcription when the returned function is called. The service transcribes asynchronously, so
   * the words can come after the agent already acted on the request.
   */
  personSays(transcript: string): () => void {
    const itemId = this.spokenItem();
    return () => void this.transcribe(itemId, transcript);
  }

  private async userTurn(transcript: string): Promise<void> {
    await this.transcribe(this.spokenItem(), transcript);
  }

  /** A spoken user turn as the service announces it, before any of its words are transcribed; returns its id. */
  private spokenItem(): string {
    const itemId = newId("item");
    const send = (type: string, fields: Record<string, unknown> = {}) => this.io.send({ type, event_id: newId("event"), ...fields });
    send("input_audio_buffer.speech_started", { audio_start_ms: 0, item_id: itemId });
    send("input_audio_buffer.speech_stopped", { audio_end_ms: 1200, item_id: itemId });
    send("input_audio_buffer.committed", { item_id: itemId, previous_item_id: null });
    send("conversation.item.added", {
      previous_item_id: null,
      item: { id: itemId, object: "realtime.item", type: "message", role: "user", status: "completed", content: [{ type: "input_audio", transcript: null }] },
    });
    return itemId;
  }

  private async transcribe(itemId: string, transcript: string): Promise<void> {
    if (this.closed) return;
    const send = (type: string, fields: Record<string, unknown> = {}) => this.io.send({ type, event_id: newId("event"), ...fields });
    const words = transcript.split(" ");
    for (const [index, word] of words.entries()) {
      if (!(await this.wait(60))) return;
      send("conversation.item.input_audio_transcription.delta", { item_id: itemId, content_index: 0, delta: index === 0 ? word : ` ${word}` });
    }
    send("conversation.item.input_audio_transcription.completed", { item_id: itemId, content_index: 0, transcript });
  }

  private async assistantTurn(text: string): Promise<void> {
    if (this.closed) return;
    const responseId = newId("resp");
    const itemId = newId("item");
    const where = { response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 };
    const send = (type: string, fields: Record<string, unknown> = {}) => this.io.send({ type, event_id: newId("event"), ...fields });
    const item = (status: string, transcript: string | null) => ({
      id: itemId,
      object: "realtime.item",
      type: "message",
      role: "assistant",
      status,
      content: transcript === null ? [] : [{ type: "output_audio", transcript }],
    });

    send("response.created", { response: { id: responseId, object: "realtime.response", status: "in_progress", output: [] } });
    send("response.output_item.added", { response_id: responseId, output_index: 0, item: item("in_progress", null) });
    send("response.content_part.added", { ...where, part: { type: "audio", transcript: "" } });
    send("output_audio_buffer.started", { response_id: responseId });
    this.io.setSpeaking(true);
    const words = text.split(" ");
    const wordMs = Math.max(this.wordMs, MIN_SPEECH_MS / words.length);
    for (const [index, word] of words.entries()) {
      send("response.output_audio_transcript.delta", { ...where, delta: index === 0 ? word : ` ${word}` });
      if (!(await this.wait(wordMs))) return;
    }
    this.io.setSpeaking(false);
    send("response.output_audio_transcript.done", { ...where, transcript: text });
    send("response.content_part.done", { ...where, part: { type: "audio", transcript: text } });
    send("response.output_item.done", { response_id: responseId, output_index: 0, item: item("completed", text) });
    send("output_audio_buffer.stopped", { response_id: responseId });
    send("response.done", { response: { id: responseId, object: "realtime.response", status: "completed", output: [item("completed", text)] } });
  }
}
