import { describe, expect, it } from "vitest";
import { assembleResponse } from "./assemble-response";

const encoder = new TextEncoder();

/** A stream of the given SSE text, cut into pieces of `size` bytes (events split across chunks). */
function streamOf(text: string, size = 7): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

const event = (type: string, payload: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;
const message = (text: string) => ({ type: "message", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });
const live = () => new AbortController().signal;

describe("assembleResponse", () => {
  it("returns the final response with the output items in output_index order", async () => {
    const text =
      event("response.created", { response: { id: "resp_1", status: "in_progress", output: [] } }) +
      event("response.output_item.done", { output_index: 1, item: message("second") }) +
      event("response.output_item.done", { output_index: 0, item: { type: "reasoning", summary: [] } }) +
      event("response.completed", { response: { id: "resp_1", status: "completed", output: [], usage: { output_tokens: 2 } } });
    expect(await assembleResponse(streamOf(text), live())).toEqual({
      kind: "response",
      response: { id: "resp_1", status: "completed", output: [{ type: "reasoning", summary: [] }, message("second")], usage: { output_tokens: 2 } },
    });
  });

  it("reads CRLF framing (also split between chunks) and multi-line data, and keeps a final event's own output when no items came", async () => {
    const data = JSON.stringify({ type: "response.incomplete", response: { id: "r", status: "incomplete", output: [message("x")] } });
    // Split at a comma: the two data lines join with a newline, which JSON allows between tokens.
    const comma = data.indexOf(",") + 1;
    const text = `event: response.incomplete\r\ndata: ${data.slice(0, comma)}\r\ndata: ${data.slice(comma)}\r\n\r\n`;
    for (const size of [1, 2, 3, 5, 64]) {
      expect(await assembleResponse(streamOf(text, size), live())).toEqual({
        kind: "response",
        response: { id: "r", status: "incomplete", output: [message("x")] },
      });
    }
  });

  it("returns a failed response as it is (status failed, the backend's error)", async () => {
    const failed = { id: "r", status: "failed", error: { code: "moderation_blocked", message: "Rejected." }, output: [] };
    expect(await assembleResponse(streamOf(event("response.failed", { response: failed })), live())).toEqual({ kind: "response", response: failed });
  });

  it("turns an error event into a failure naming its code, never quoting the backend's message", async () => {
    const text = event("error", { code: "rate_limit_exceeded", message: "Your prompt 'secret words' was too long", sequence_number: 4 });
    const result = await assembleResponse(streamOf(text), live());
    expect(result).toEqual({ kind: "failed", detail: "The model's reply failed (rate_limit_exceeded).", code: "rate_limit_exceeded" });
  });

  it("keeps the proxy's own interruption message", async () => {
    const text = event("error", { code: "upstream_stream_interrupted", message: "The model's reply broke off before it finished. Try again.", sequence_number: -1 });
    expect(await assembleResponse(streamOf(text), live())).toMatchObject({ kind: "failed", detail: "The model's reply broke off before it finished. Try again." });
  });

  it("fails a stream that ends without a final event", async () => {
    const text = event("response.output_item.done", { output_index: 0, item: message("half") });
    expect(await assembleResponse(streamOf(text), live())).toMatchObject({ kind: "failed", code: "upstream_stream_interrupted" });
  });

  it("stops reading past the byte limit and cancels the stream", async () => {
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(encoder.encode("data: x\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    expect(await assembleResponse(endless, live(), 1000)).toEqual({
      kind: "failed",
      detail: 'The reply is larger than 1000 bytes; ask for it with "stream": true.',
    });
    expect(cancelled).toBe(true);
  });

  it("answers aborted when the caller goes away mid-reply", async () => {
    const controller = new AbortController();
    const silent = new ReadableStream<Uint8Array>({
      start(stream) {
        stream.enqueue(encoder.encode(event("response.created", { response: { id: "r" } })));
      },
    });
    const result = assembleResponse(silent, controller.signal);
    controller.abort();
    expect(await result).toEqual({ kind: "aborted" });
  });
});
