import { describeErrorForLog, LOG_PREFIX, type Logger } from "./logger";

/** The error code of the SSE event the proxy appends when the upstream stream breaks off. */
export const STREAM_INTERRUPTED_CODE = "upstream_stream_interrupted";

const encoder = new TextEncoder();

/**
 * A Responses-API `error` event, in the shape the AI SDK's OpenAI provider parses. The leading
 * blank line ends any event the upstream left half-written; `sequence_number: -1` marks it as
 * added by the proxy rather than sent by the backend.
 */
function interruptedEvent(): Uint8Array {
  const event = {
    type: "error",
    sequence_number: -1,
    code: STREAM_INTERRUPTED_CODE,
    message: "The model's reply broke off before it finished. Try again.",
    param: null,
  };
  return encoder.encode(`\n\nevent: error\ndata: ${JSON.stringify(event)}\n\n`);
}

/**
 * Passes the upstream bytes through one chunk at a time, as they arrive. When the upstream
 * connection fails mid-reply, the browser gets a clean end with one `error` event (and the log one
 * line) instead of a torn connection and a framework stack trace. A client that goes away cancels
 * the upstream read; that is not an interruption.
 */
export function guardUpstreamStream(
  body: ReadableStream<Uint8Array>,
  logger: Logger,
  clientSignal: AbortSignal,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        if (cancelled || clientSignal.aborted) return;
        logger.warn(`${LOG_PREFIX} upstream /responses stream interrupted: ${describeErrorForLog(error)}`);
        controller.enqueue(interruptedEvent());
        controller.close();
      }
    },
    cancel(reason) {
      cancelled = true;
      return reader.cancel(reason);
    },
  });
}
