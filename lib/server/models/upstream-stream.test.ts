import { describe, expect, it } from "vitest";
import { runWithRequestId, withRequestIds, type Logger } from "@/lib/logger";
import { guardUpstreamStream, STREAM_INTERRUPTED_CODE } from "./upstream-stream";

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
}

/** Reads a stream the way the framework does: from outside any request's scope, chunk by chunk. */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) text += decoder.decode(read.value, { stream: true });
  return text + decoder.decode();
}

function upstreamOf(chunks: Uint8Array[], failAtEnd = false): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++]!);
      else if (failAtEnd) controller.error(new TypeError("terminated"));
      else controller.close();
    },
  });
}

describe("guardUpstreamStream", () => {
  it("passes the upstream bytes through unchanged", async () => {
    const parts = ["event: a\ndata: {}\n\n", "event: b\ndata: {}\n\n"].map((s) => new TextEncoder().encode(s));
    const guarded = guardUpstreamStream(upstreamOf(parts), recordingLogger(), new AbortController().signal);
    expect(await readAll(guarded)).toBe("event: a\ndata: {}\n\nevent: b\ndata: {}\n\n");
  });

  it("leaves a chunk that shares its memory with other data intact (it is copied, not moved)", async () => {
    // Small Buffers are slices of one shared pool: moving a slice's memory would empty its neighbours.
    const chunk = Buffer.from("event: a\ndata: {}\n\n");
    const neighbour = Buffer.from("still here");
    expect(chunk.buffer).toBe(neighbour.buffer);
    const guarded = guardUpstreamStream(upstreamOf([chunk]), recordingLogger(), new AbortController().signal);
    expect(await readAll(guarded)).toBe("event: a\ndata: {}\n\n");
    expect(neighbour.toString()).toBe("still here");
    expect(chunk.toString()).toBe("event: a\ndata: {}\n\n");
  });

  it("ends a reply that breaks off with one error event and logs it with the request id", async () => {
    const logger = recordingLogger();
    const guarded = runWithRequestId("req-guard-1", () =>
      guardUpstreamStream(upstreamOf([new TextEncoder().encode("event: a\ndata: {}\n\n")], true), withRequestIds(logger), new AbortController().signal),
    );
    // The framework reads the reply later, from its own scope: only after the stream has started.
    await new Promise((resolve) => setImmediate(resolve));
    const text = await readAll(guarded);
    const last = text.trim().split("\n\n").at(-1)!;
    expect(last).toContain("event: error");
    expect(JSON.parse(last.split("data: ")[1]!)).toMatchObject({ type: "error", code: STREAM_INTERRUPTED_CODE });
    expect(logger.lines).toEqual([expect.stringMatching(/upstream \/responses stream interrupted: TypeError request_id=req-guard-1$/)]);
  });
});
