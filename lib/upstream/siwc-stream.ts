import "server-only";
import { classifySiwcStreamFailure, type SiwcFailure } from "./siwc-errors";

/**
 * How a SIWC reply stream ended when it did not end in `response.completed` (spec siwc.md §7:
 * success means `response.completed` only).
 */
export type SiwcStreamEnd =
  /** `response.failed` or an `error` event of the backend, in our words. */
  | { kind: "failed"; failure: SiwcFailure }
  /** `response.incomplete`, `[DONE]` before `response.completed`, or the end of the stream before it. */
  | { kind: "interrupted"; reason: "incomplete" | "done_early" | "eof"; message: string }
  /** The error event an earlier guard (ours, `sequence_number: -1`) already wrote. */
  | { kind: "guarded"; message: string };

interface SiwcStreamOptions {
  /** The `code` of the error event written for an interrupted reply (the proxy's stream-interrupted code). */
  interruptedCode: string;
  /** The model asked for (named in a `model_not_found` failure). */
  model?: string;
  /** The backend's request id of this reply, carried in the error event as `request_id`. */
  requestId?: string;
  /** Called once, before the error event is written, when the reply did not complete. */
  onEnd?: (end: SiwcStreamEnd) => void;
}

const encoder = new TextEncoder();
const SAFE_REASON = /^[a-z0-9_]{1,64}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The joined `data:` lines of one event block (LF line ends), or undefined when it has none. */
function dataOf(block: string): string | undefined {
  const lines = block.split("\n").filter((line) => line.startsWith("data:"));
  if (lines.length === 0) return undefined;
  return lines.map((line) => line.slice(line.startsWith("data: ") ? 6 : 5)).join("\n");
}

function parseEvent(data: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(data);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function incompleteMessage(event: Record<string, unknown>): string {
  const details = isRecord(event.response) && isRecord(event.response.incomplete_details) ? event.response.incomplete_details : undefined;
  const reason = typeof details?.reason === "string" && SAFE_REASON.test(details.reason) ? ` (${details.reason})` : "";
  return `The model stopped before it finished the answer${reason}. What arrived is kept; try again for the rest.`;
}

/**
 * Passes a SIWC reply stream through event by event as it arrives (an event is sent on as soon as
 * its closing blank line is in; nothing else is held back), with line ends made LF. A reply that
 * does not end in `response.completed` never looks finished: `response.failed`, a backend `error`
 * event and `response.incomplete` are replaced by one `error` event of ours (our code and sentence,
 * the shape the AI SDK reports as a stream error), and `[DONE]` or the end of the stream before
 * `response.completed` add one; the upstream read is then cancelled and the stream ends.
 */
export function watchSiwcStream(body: ReadableStream<Uint8Array>, options: SiwcStreamOptions): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  let heldCR = false;
  let completed = false;
  let ended = false;
  /** Events sent on so far: a pull reads until it has sent one. */
  let sent = 0;
  let reply!: ReadableStreamDefaultController<Uint8Array>;

  const errorEvent = (code: string, message: string, param?: string, upstreamCode?: string) => {
    const event: Record<string, unknown> = { type: "error", sequence_number: -1, code, message, param: param ?? null };
    if (upstreamCode !== undefined) event.upstream_code = upstreamCode;
    if (options.requestId !== undefined) event.request_id = options.requestId;
    return encoder.encode(`event: error\ndata: ${JSON.stringify(event)}\n\n`);
  };

  /** Ends the reply: the error event (if any), close, and the upstream read cancelled. */
  const send = (bytes: Uint8Array) => {
    sent++;
    reply.enqueue(bytes);
  };

  const finish = (end: SiwcStreamEnd | undefined, written?: Uint8Array) => {
    ended = true;
    if (end) options.onEnd?.(end);
    if (written) send(written);
    reply.close();
    void reader.cancel("reply ended").catch(() => undefined);
  };

  const interrupted = (reason: "incomplete" | "done_early" | "eof", message: string) =>
    finish({ kind: "interrupted", reason, message }, errorEvent(options.interruptedCode, message));

  /** One whole event block (without its closing blank line): sent on, replaced, or the end. */
  const handle = (block: string): void => {
    const data = dataOf(block);
    if (completed || data === undefined) return send(encoder.encode(`${block}\n\n`));
    if (data.trim() === "[DONE]") {
      return interrupted("done_early", "The model's reply ended before it finished. Try again.");
    }
    const event = parseEvent(data);
    const type = event?.type;
    if (event && type === "response.completed") completed = true;
    else if (event && type === "error" && event.sequence_number === -1) {
      // Already ours (the connection guard's): sent on as it is.
      const message = typeof event.message === "string" ? event.message : "The model's reply broke off.";
      return finish({ kind: "guarded", message }, encoder.encode(`${block}\n\n`));
    } else if (event && (type === "response.failed" || type === "error")) {
      const failure = classifySiwcStreamFailure(event, options.model === undefined ? { route: "responses" } : { route: "responses", model: options.model });
      if (options.requestId !== undefined) failure.requestId = options.requestId;
      return finish({ kind: "failed", failure }, errorEvent(failure.code, failure.message, failure.param, failure.upstreamCode));
    } else if (event && type === "response.incomplete") {
      return interrupted("incomplete", incompleteMessage(event));
    }
    send(encoder.encode(`${block}\n\n`));
  };

  const take = (text: string) => {
    // SSE lines end in CRLF, CR or LF; a CRLF split across two chunks is still one line end.
    let chunk = heldCR && text.startsWith("\n") ? text.slice(1) : text;
    heldCR = chunk.endsWith("\r");
    chunk = chunk.replace(/\r\n?/g, "\n");
    pending += chunk;
    let end: number;
    while (!ended && (end = pending.indexOf("\n\n")) !== -1) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      handle(block);
    }
  };

  return new ReadableStream<Uint8Array>({
    start(controller) {
      reply = controller;
    },
    async pull() {
      // Reads until an event was sent on or the stream ended (a chunk may hold only part of an event).
      const before = sent;
      while (!ended && sent === before) {
        const { done, value } = await reader.read();
        if (done) {
          take(decoder.decode());
          if (ended) return;
          if (pending.trim() !== "") handle(pending.replace(/\n+$/, ""));
          if (ended) return;
          if (completed) {
            ended = true;
            reply.close();
          } else interrupted("eof", "The model's reply ended before it finished. Try again.");
          return;
        }
        take(decoder.decode(value, { stream: true }));
      }
    },
    cancel(reason) {
      ended = true;
      return reader.cancel(reason);
    },
  });
}
