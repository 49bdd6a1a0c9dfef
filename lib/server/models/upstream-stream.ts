import "server-only";
import { describeErrorForLog, keepRequestId, LOG_PREFIX, type Logger } from "@/lib/logger";

/** The error code of the SSE event the proxy appends when the upstream stream breaks off. */
export const STREAM_INTERRUPTED_CODE = "upstream_stream_interrupted";

const encoder = new TextEncoder();

/**
 * A Responses-API `error` event, in the shape the AI SDK's OpenAI provider parses. The leading
 * blank line ends any event the upstream left half-written; `sequence_number: -1` marks it as
 * added by the proxy rather than sent by the backend.
 */
function interruptedEvent(message = "The model's reply broke off before it finished. Try again."): Uint8Array<ArrayBuffer> {
  const event = { type: "error", sequence_number: -1, code: STREAM_INTERRUPTED_CODE, message, param: null };
  return encoder.encode(`\n\nevent: error\ndata: ${JSON.stringify(event)}\n\n`);
}

/**
 * A byte stream takes over the memory of what it is given. A fetch body's chunks each own their
 * memory and are handed on as they are; anything else (a slice of shared memory, as a custom fetch's
 * small Buffers are) is copied first.
 */
function ownChunk(chunk: Uint8Array): Uint8Array<ArrayBuffer> {
  const { buffer } = chunk;
  if (buffer instanceof ArrayBuffer && chunk.byteOffset === 0 && chunk.byteLength === buffer.byteLength) return chunk as Uint8Array<ArrayBuffer>;
  // A copy (not chunk.slice(): on a Buffer that is a view of the same memory).
  return new Uint8Array(chunk);
}

/**
 * Passes the upstream bytes through one chunk at a time, as they arrive. When the upstream
 * connection fails mid-reply, the browser gets a clean end with one `error` event (and the log one
 * line) instead of a torn connection and a framework stack trace. A client that goes away cancels
 * the upstream read; that is not an interruption.
 *
 * A byte stream with no queue of its own: each read of the reply reads the upstream once and hands
 * its chunk straight over. That costs about half of what a default stream, which reads one chunk
 * ahead into its queue, costs per reply (`npm run bench:floor`).
 */
export function guardUpstreamStream(
  body: ReadableStream<Uint8Array>,
  logger: Logger,
  clientSignal: AbortSignal,
  /**
   * Longest the reply may stream. Past it the upstream read is cancelled and the reply ends with
   * the same in-band `error` event, before a platform limit (Vercel's maxDuration) tears it down.
   */
  maxStreamMs?: number,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let cancelled = false;
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let reply!: ReadableByteStreamController;
  // The reads run in the framework's scope, not the request's: the log lines keep the request id.
  const warn = keepRequestId((message) => logger.warn(message));
  const endAtTimeLimit = () => {
    warn(`${LOG_PREFIX} upstream /responses stream stopped at the time limit (${maxStreamMs} ms)`);
    reply.enqueue(interruptedEvent("The reply reached this server's time limit and was cut short. Ask to continue."));
    reply.close();
  };
  // Callbacks on reader.read() rather than an async pull: one promise per chunk instead of three.
  const forward = ({ done, value }: ReadableStreamReadResult<Uint8Array>) => {
    // A read that finishes after the client cancelled the reply has nowhere to go.
    if (cancelled) return;
    if (timedOut) return endAtTimeLimit();
    if (done) {
      clearTimeout(timer);
      reply.close();
    } else reply.enqueue(ownChunk(value));
  };
  const interrupted = (error: unknown) => {
    clearTimeout(timer);
    if (timedOut && !cancelled) return endAtTimeLimit();
    if (cancelled || clientSignal.aborted) return;
    warn(`${LOG_PREFIX} upstream /responses stream interrupted: ${describeErrorForLog(error)}`);
    reply.enqueue(interruptedEvent());
    reply.close();
  };
  return new ReadableStream({
    type: "bytes",
    start(controller) {
      reply = controller;
      if (!maxStreamMs) return;
      timer = setTimeout(() => {
        timedOut = true;
        void reader.cancel("time limit").catch(() => undefined);
      }, maxStreamMs);
    },
    pull: () => reader.read().then(forward, interrupted),
    cancel(reason) {
      cancelled = true;
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
}
