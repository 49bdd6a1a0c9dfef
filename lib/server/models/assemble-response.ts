import "server-only";
import { STREAM_INTERRUPTED_CODE } from "./upstream-stream";

/**
 * Most bytes of a stream read for one JSON reply. A reply of text is far smaller; generated images
 * (partial ones included) are the large case. Past it the caller is told to ask for a stream.
 */
const MAX_ASSEMBLED_STREAM_BYTES = 64 * 1024 * 1024;

export type AssembledResponse =
  /** The final response object (completed, incomplete or failed), with `output` from the output items. */
  | { kind: "response"; response: Record<string, unknown> }
  /** No final response: an in-band `error` event, a stream that ended early, or one too large. */
  | { kind: "failed"; detail: string; code?: string }
  /** The caller went away while the reply was read. */
  | { kind: "aborted" };

const FINAL_TYPES = new Set(["response.completed", "response.incomplete", "response.failed"]);
const SAFE_CODE = /^[A-Za-z0-9_.-]{1,64}$/;
const decoder = new TextDecoder();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON of one SSE event block (its `data:` lines joined), or undefined when it has none or is not JSON. */
function eventData(block: string): Record<string, unknown> | undefined {
  const data = block
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
    .join("\n");
  if (data === "") return undefined;
  try {
    const parsed: unknown = JSON.parse(data);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** An `error` event as a failure; its message is only used when it is the proxy's own (never the backend's text). */
function failureOf(event: Record<string, unknown>): AssembledResponse {
  const code = typeof event.code === "string" && SAFE_CODE.test(event.code) ? event.code : undefined;
  if (code === STREAM_INTERRUPTED_CODE && event.sequence_number === -1 && typeof event.message === "string") {
    return { kind: "failed", detail: event.message, code };
  }
  return { kind: "failed", detail: code ? `The model's reply failed (${code}).` : "The model's reply failed.", ...(code ? { code } : {}) };
}

/**
 * Reads a Responses-API event stream to its final event and returns that event's response object,
 * its `output` being the items of the `response.output_item.done` events in order (the backend's
 * final event need not repeat them). For a `stream: false` request: the backend only streams.
 */
export async function assembleResponse(
  stream: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  maxBytes = MAX_ASSEMBLED_STREAM_BYTES,
): Promise<AssembledResponse> {
  const reader = stream.getReader();
  const cancel = () => void reader.cancel("client gone").catch(() => undefined);
  signal.addEventListener("abort", cancel, { once: true });
  const items: { index: number; item: unknown }[] = [];
  let buffered = "";
  let searchFrom = 0; // where an event's end may start: a large event arriving in many chunks is scanned once
  let bytes = 0;
  let endedWithCR = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal.aborted) return { kind: "aborted" };
      if (done) return { kind: "failed", detail: "The model's reply ended before it finished. Try again.", code: STREAM_INTERRUPTED_CODE };
      bytes += value.byteLength;
      if (bytes > maxBytes) {
        cancel();
        return { kind: "failed", detail: `The reply is larger than ${maxBytes} bytes; ask for it with "stream": true.` };
      }
      let text = decoder.decode(value, { stream: true });
      // SSE lines may end in CRLF, CR or LF; a CRLF split across two chunks is still one line end.
      if (endedWithCR && text.startsWith("\n")) text = text.slice(1);
      endedWithCR = text.endsWith("\r");
      buffered += text.replace(/\r\n?/g, "\n");
      let end: number;
      while ((end = buffered.indexOf("\n\n", searchFrom)) !== -1) {
        const event = eventData(buffered.slice(0, end));
        buffered = buffered.slice(end + 2);
        searchFrom = 0;
        if (!event) continue;
        if (event.type === "response.output_item.done" && typeof event.output_index === "number") {
          items.push({ index: event.output_index, item: event.item });
        } else if (typeof event.type === "string" && FINAL_TYPES.has(event.type) && isRecord(event.response)) {
          cancel();
          const response = { ...event.response };
          if (items.length > 0) response.output = items.sort((a, b) => a.index - b.index).map((entry) => entry.item);
          return { kind: "response", response };
        } else if (event.type === "error") {
          cancel();
          return failureOf(event);
        }
      }
      searchFrom = Math.max(0, buffered.length - 1);
    }
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}
