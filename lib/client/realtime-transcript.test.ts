import { describe, expect, it } from "vitest";
import { agentActionAt, transcriptToMessages } from "./realtime-chat-messages";
import { textOf } from "./chat-turns";
import { parseServerEvent, typedMessageEvents, unwrapWebEvent, webTypedMessageEvent, wrapWebEvent } from "./realtime-events";
import { rootMeanSquare } from "./realtime-levels";
import { appendTypedLine, applyTranscriptEvent, finishedTranscript, type TranscriptLine } from "./realtime-transcript";

function fold(events: Record<string, unknown>[]): TranscriptLine[] {
  return events.reduce<TranscriptLine[]>((lines, event) => applyTranscriptEvent(lines, parseServerEvent(JSON.stringify(event))!), []);
}

describe("applyTranscriptEvent", () => {
  it("builds both sides from deltas and replaces them with the final text", () => {
    const lines = fold([
      { type: "session.created" },
      { type: "conversation.item.input_audio_transcription.delta", item_id: "u1", delta: "Hel" },
      { type: "conversation.item.input_audio_transcription.delta", item_id: "u1", delta: "lo" },
      { type: "response.output_audio_transcript.delta", item_id: "a1", delta: "Hi " },
      { type: "conversation.item.input_audio_transcription.completed", item_id: "u1", transcript: "Hello." },
      { type: "response.output_audio_transcript.delta", item_id: "a1", delta: "there" },
    ]);
    expect(lines).toEqual([
      { id: "u1", role: "user", text: "Hello.", done: true },
      { id: "a1", role: "assistant", text: "Hi there", done: false },
    ]);
    const done = applyTranscriptEvent(lines, { type: "response.output_audio_transcript.done", item_id: "a1", transcript: "Hi there!" });
    expect(done[1]).toEqual({ id: "a1", role: "assistant", text: "Hi there!", done: true });
  });

  it("puts a spoken turn where it was said, before text typed while its words were still being transcribed", () => {
    const spoken = { id: "u1", object: "realtime.item", type: "message", role: "user", content: [{ type: "input_audio", transcript: null }] };
    let lines = fold([
      { type: "input_audio_buffer.committed", item_id: "u1" },
      { type: "conversation.item.added", item: spoken },
    ]);
    lines = appendTypedLine(lines, "typed-1", "typed after speaking");
    lines = applyTranscriptEvent(lines, { type: "conversation.item.input_audio_transcription.delta", item_id: "u1", delta: "Hello" });
    lines = applyTranscriptEvent(lines, { type: "conversation.item.input_audio_transcription.completed", item_id: "u1", transcript: "Hello there" });
    expect(lines.map((line) => [line.id, line.text])).toEqual([
      ["u1", "Hello there"],
      ["typed-1", "typed after speaking"],
    ]);
  });

  it("makes no line for an added assistant item or a typed message the service echoes back", () => {
    const typedEcho = { id: "i2", type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] };
    const assistant = { id: "i3", type: "message", role: "assistant", content: [] };
    const lines: TranscriptLine[] = [];
    expect(applyTranscriptEvent(lines, { type: "conversation.item.added", item: typedEcho })).toBe(lines);
    expect(applyTranscriptEvent(lines, { type: "conversation.item.added", item: assistant })).toBe(lines);
  });

  it("leaves the lines untouched for other events and events without an item id", () => {
    const lines: TranscriptLine[] = [{ id: "a", role: "assistant", text: "x", done: true }];
    expect(applyTranscriptEvent(lines, { type: "response.done" })).toBe(lines);
    expect(applyTranscriptEvent(lines, { type: "response.output_audio_transcript.delta", delta: "y" })).toBe(lines);
  });

  it("keeps typed lines and drops empty ones at the end of the call", () => {
    const lines = appendTypedLine([{ id: "a", role: "assistant", text: "  ", done: false }], "t1", "typed words");
    expect(finishedTranscript(lines)).toEqual([{ id: "t1", role: "user", text: "typed words", done: true, typed: true }]);
  });
});

describe("parseServerEvent", () => {
  it("accepts JSON objects with a string type only", () => {
    expect(parseServerEvent('{"type":"response.done"}')).toEqual({ type: "response.done" });
    expect(parseServerEvent('{"kind":"x"}')).toBeUndefined();
    expect(parseServerEvent("[1]")).toBeUndefined();
    expect(parseServerEvent("not json")).toBeUndefined();
    expect(parseServerEvent(new ArrayBuffer(2))).toBeUndefined();
  });
});

describe("typedMessageEvents", () => {
  it("creates a user message item and then asks for a response", () => {
    const [create, respond] = typedMessageEvents("hello");
    expect(create).toEqual({ type: "conversation.item.create", item: { type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] } });
    expect(respond).toEqual({ type: "response.create" });
  });
});

describe("rootMeanSquare", () => {
  it("is 0 for silence and 1/sqrt(2) for a full-scale sine", () => {
    expect(rootMeanSquare(new Float32Array(128))).toBe(0);
    const sine = Float32Array.from({ length: 1000 }, (_, i) => Math.sin((2 * Math.PI * i) / 100));
    expect(rootMeanSquare(sine)).toBeCloseTo(Math.SQRT1_2, 3);
  });
});

describe("transcriptToMessages", () => {
  it("turns lines into text chat messages with stable ids", () => {
    const messages = transcriptToMessages(
      [
        { id: "u", role: "user", text: "Hi", done: true },
        { id: "a", role: "assistant", text: "Hello", done: true },
      ],
      "call1",
    );
    expect(messages.map((m) => [m.id, m.role, m.parts])).toEqual([
      ["voice-call1-0", "user", [{ type: "text", text: "Hi" }]],
      ["voice-call1-1", "assistant", [{ type: "text", text: "Hello" }]],
    ]);
  });
});

describe("transcriptToMessages: voice turns and agent actions", () => {
  const lines = [
    { id: "u1", role: "user" as const, text: "Save a note: water the ferns", done: true },
    { id: "a1", role: "assistant" as const, text: "Saved.", done: true },
    { id: "u2", role: "user" as const, text: "Thanks", done: true },
  ];

  it("marks every turn as said by voice", () => {
    for (const message of transcriptToMessages(lines, "call2")) expect(message.metadata).toEqual({ source: "voice" });
  });

  it("puts each agent action after the line that was last when it happened, marked as an agent action", () => {
    const messages = transcriptToMessages(lines, "call3", [
      { afterLineId: "u1", orAfterLineId: "u1", text: "save_note (text: water the ferns): done" },
      { afterLineId: "u2", orAfterLineId: "u2", text: "get_current_time: done" },
      { afterLineId: null, orAfterLineId: null, text: "first of all" },
    ]);
    expect(messages.map((m) => [m.id, m.role, m.metadata, m.parts])).toEqual([
      ["voice-call3-action-2", "assistant", { source: "voice", agentAction: true }, [{ type: "text", text: "first of all" }]],
      ["voice-call3-0", "user", { source: "voice" }, [{ type: "text", text: "Save a note: water the ferns" }]],
      ["voice-call3-action-0", "assistant", { source: "voice", agentAction: true }, [{ type: "text", text: "save_note (text: water the ferns): done" }]],
      ["voice-call3-1", "assistant", { source: "voice" }, [{ type: "text", text: "Saved." }]],
      ["voice-call3-2", "user", { source: "voice" }, [{ type: "text", text: "Thanks" }]],
      ["voice-call3-action-1", "assistant", { source: "voice", agentAction: true }, [{ type: "text", text: "get_current_time: done" }]],
    ]);
  });

  it("places an action after the person's request even when its words had not arrived yet", () => {
    // The agent finished before the request's transcription: its line was last, still empty.
    const during = [
      { id: "u0", role: "user" as const, text: "Hello", done: true },
      { id: "a0", role: "assistant" as const, text: "Hi there.", done: true },
      { id: "u1", role: "user" as const, text: "", done: false },
    ];
    const action = agentActionAt(during, "get_current_time: done");
    expect(action).toEqual({ afterLineId: "u1", orAfterLineId: "a0", text: "get_current_time: done" });
    const finished = [...during.slice(0, 2), { id: "u1", role: "user" as const, text: "What time is it?", done: true }];
    const messages = transcriptToMessages(finished, "call5", [action]);
    expect(messages.map((m) => textOf(m))).toEqual(["Hello", "Hi there.", "What time is it?", "get_current_time: done"]);
  });

  it("puts an action whose line was left out (no words in it) after the last line with words before it, else at the end", () => {
    const placed = transcriptToMessages(lines, "call6", [{ afterLineId: "gone", orAfterLineId: "u1", text: "save_note: done" }]);
    expect(placed.map((m) => m.id)).toEqual(["voice-call6-0", "voice-call6-action-0", "voice-call6-1", "voice-call6-2"]);
    const messages = transcriptToMessages(lines.slice(0, 1), "call4", [{ afterLineId: "gone", orAfterLineId: "gone too", text: "save_note: failed" }]);
    expect(messages.map((m) => m.id)).toEqual(["voice-call4-0", "voice-call4-action-0"]);
  });
});

describe("web transport events", () => {
  it("unwraps data_message events and leaves others alone", () => {
    const inner = { type: "response.output_audio_transcript.delta", item_id: "a", delta: "Hi" };
    expect(unwrapWebEvent({ type: "data_message", data: JSON.stringify(inner) })).toEqual(inner);
    expect(unwrapWebEvent({ type: "state_update", new_state: "speaking" })).toEqual({ type: "state_update", new_state: "speaking" });
    expect(unwrapWebEvent({ type: "data_message", data: "not json" })).toEqual({ type: "data_message", data: "not json" });
  });

  it("wraps client events and sends typed text as one relay_message", () => {
    expect(wrapWebEvent({ type: "relay_message", text: "hi" })).toEqual({ type: "data_message", data: '{"type":"relay_message","text":"hi"}' });
    expect(webTypedMessageEvent("hi")).toEqual({ type: "relay_message", text: "hi" });
  });
});
