import "server-only";
/** What a `/responses` event stream said: its event types (each once, in order), the text, and a failure. */
interface ReplyStream {
  types: string[];
  text: string;
  /** The message (or the JSON) of a `response.failed` or `error` event. */
  failure?: string;
}

const MAX_TEXT_CHARS = 2000;

/** Reads the whole stream (a dropped connection ends it as it is). */
export async function readReplyStream(body: ReadableStream<Uint8Array>): Promise<ReplyStream> {
  const result: ReplyStream = { types: [], text: "" };
  const decoder = new TextDecoder();
  let buffer = "";
  const take = (block: string) => {
    const data = block
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    if (data === "" || data === "[DONE]") return;
    let event: { type?: unknown; delta?: unknown; message?: unknown; response?: { error?: unknown } };
    try {
      event = JSON.parse(data) as typeof event;
    } catch {
      return;
    }
    const type = typeof event.type === "string" ? event.type : "?";
    if (!result.types.includes(type)) result.types.push(type);
    if (type === "response.output_text.delta" && typeof event.delta === "string") {
      result.text = (result.text + event.delta).slice(0, MAX_TEXT_CHARS);
    }
    if (type === "error" || type === "response.failed") {
      const error = event.response?.error ?? event;
      const message = (error as { message?: unknown }).message;
      result.failure = typeof message === "string" ? message : JSON.stringify(error);
    }
  };
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
      let end: number;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        take(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  } catch {
    // The connection dropped: what arrived is the answer.
  } finally {
    reader.releaseLock();
  }
  take(buffer);
  return result;
}
