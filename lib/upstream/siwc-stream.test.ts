import { describe, expect, it } from "vitest";
import { MANAGE_USAGE_URL } from "./siwc-errors";
import { watchSiwcStream, type SiwcStreamEnd } from "./siwc-stream";

const encoder = new TextEncoder();
const INTERRUPTED = "upstream_stream_interrupted";

/** A stream of the given chunks; `cancelled` says whether the reader cancelled it. */
function source(chunks: string[], { close = true } = {}) {
  const state = { cancelled: false };
  let index = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index < chunks.length) controller.enqueue(encoder.encode(chunks[index++]!));
      else if (close) controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

const frame = (event: object, named = false) => `${named ? `event: ${(event as { type: string }).type}\n` : ""}data: ${JSON.stringify(event)}\n\n`;
const delta = (text: string) => frame({ type: "response.output_text.delta", delta: text });
const completed = frame({ type: "response.completed", response: { status: "completed", output: [] } });

async function run(chunks: string[], options: { close?: boolean; model?: string } = {}) {
  const ends: SiwcStreamEnd[] = [];
  const { stream, state } = source(chunks, options);
  const watched = watchSiwcStream(stream, { interruptedCode: INTERRUPTED, requestId: "req_9", model: options.model, onEnd: (end) => ends.push(end) });
  const text = await new Response(watched).text();
  const events = text
    .split("\n\n")
    .filter((block) => block.includes("data:"))
    .map((block) => block.split("\n").find((line) => line.startsWith("data:"))!.slice(5).trim())
    .map((data) => (data === "[DONE]" ? data : (JSON.parse(data) as Record<string, unknown>)));
  return { text, events, ends, cancelled: state.cancelled };
}

describe("watchSiwcStream", () => {
  it("passes a completed reply through as it is (CRLF made LF), with no error event", async () => {
    const { events, ends, text } = await run([delta("Hel").replaceAll("\n", "\r\n"), delta("lo"), completed]);
    expect(events.map((event) => (event as { type: string }).type)).toEqual([
      "response.output_text.delta",
      "response.output_text.delta",
      "response.completed",
    ]);
    expect(text).not.toContain("\r");
    expect(ends).toEqual([]);
  });

  it("sends each event on as soon as it is whole, before the stream ends", async () => {
    const { stream } = source([delta("first"), delta("sec")], { close: false });
    const reader = watchSiwcStream(stream, { interruptedCode: INTERRUPTED }).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"first"');
    await reader.cancel();
  });

  it("joins an event split across chunks, mid-UTF-8 and mid-CRLF", async () => {
    const bytes = encoder.encode(`data: ${JSON.stringify({ type: "response.output_text.delta", delta: "héllo" })}\r\n\r\n`);
    const cut = bytes.indexOf(0xc3) + 1;
    const parts = [bytes.slice(0, cut), bytes.slice(cut, bytes.length - 1), bytes.slice(bytes.length - 1)];
    let index = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (index < parts.length) controller.enqueue(parts[index++]!);
        else {
          controller.enqueue(encoder.encode(completed));
          controller.close();
        }
      },
    });
    const text = await new Response(watchSiwcStream(stream, { interruptedCode: INTERRUPTED })).text();
    expect(text).toContain('"delta":"héllo"');
    expect(text).not.toContain('"type":"error"');
  });

  it("replaces response.failed with our error event (our code and sentence, the request id) and stops", async () => {
    const failed = frame({ type: "response.failed", response: { error: { code: "subscription_sharing_usage_limit_exceeded", message: "limit; resets in 2h" } } }, true);
    const { events, ends, cancelled, text } = await run([delta("Hi"), failed, delta("never")]);
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ type: "error", sequence_number: -1, code: "plan_usage_limit_reached", upstream_code: "subscription_sharing_usage_limit_exceeded", request_id: "req_9" });
    expect((events[1] as { message: string }).message).toContain(MANAGE_USAGE_URL);
    expect(text).not.toContain("resets in");
    expect(text).not.toContain("never");
    expect(ends).toMatchObject([{ kind: "failed", failure: { status: 429, code: "plan_usage_limit_reached", requestId: "req_9" } }]);
    expect(cancelled).toBe(true);
  });

  it("replaces a backend error event the same way", async () => {
    const { events, ends } = await run([frame({ type: "error", code: "model_not_found", message: "no such model" })], { model: "gpt-x" });
    expect(events).toMatchObject([{ type: "error", code: "model_not_supported" }]);
    expect(ends).toMatchObject([{ kind: "failed", failure: { code: "model_not_supported", model: "gpt-x" } }]);
  });

  it("response.incomplete becomes an error event with the reason", async () => {
    const incomplete = frame({ type: "response.incomplete", response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } } });
    const { events, ends } = await run([delta("part"), incomplete]);
    expect(events[1]).toMatchObject({ type: "error", code: INTERRUPTED });
    expect((events[1] as { message: string }).message).toContain("max_output_tokens");
    expect(ends).toMatchObject([{ kind: "interrupted", reason: "incomplete" }]);
  });

  it("the end of the stream before response.completed adds an error event", async () => {
    const { events, ends } = await run([delta("part")]);
    expect(events.at(-1)).toMatchObject({ type: "error", code: INTERRUPTED, request_id: "req_9" });
    expect(ends).toMatchObject([{ kind: "interrupted", reason: "eof" }]);
  });

  it("[DONE] before response.completed is an interruption; after it, a normal end", async () => {
    const early = await run([delta("part"), "data: [DONE]\n\n", completed]);
    expect(early.events.at(-1)).toMatchObject({ type: "error", code: INTERRUPTED });
    expect(early.text).not.toContain("response.completed");
    expect(early.ends).toMatchObject([{ kind: "interrupted", reason: "done_early" }]);

    const late = await run([delta("part"), completed, "data: [DONE]\n\n"]);
    expect(late.events.at(-1)).toBe("[DONE]");
    expect(late.ends).toEqual([]);
  });

  it("a last event without its blank line still counts", async () => {
    const { events, ends } = await run([delta("a"), completed.trimEnd()]);
    expect(events.at(-1)).toMatchObject({ type: "response.completed" });
    expect(ends).toEqual([]);
  });

  it("passes the connection guard's own error event on and adds none", async () => {
    const guard = `event: error\ndata: ${JSON.stringify({ type: "error", sequence_number: -1, code: INTERRUPTED, message: "broke off", param: null })}\n\n`;
    const { events, ends } = await run([delta("a"), guard]);
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ message: "broke off" });
    expect(ends).toEqual([{ kind: "guarded", message: "broke off" }]);
  });

  it("passes comments and unknown events on", async () => {
    const { text, ends } = await run([": keepalive\n\n", frame({ type: "response.created", response: {} }), completed]);
    expect(text.startsWith(": keepalive\n\n")).toBe(true);
    expect(ends).toEqual([]);
  });
});
