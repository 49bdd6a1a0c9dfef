import "server-only";
/**
 * Newline-delimited lines from a stream (a local codex's stdout), each capped in bytes.
 */
import type { Readable } from "node:stream";

/**
 * Calls `onLine` with each complete line of `input` (UTF-8, without its newline). A line longer
 * than `maxBytes` is never held whole: reading stops and `onTooLong` is called, once. Returns a
 * function that stops reading.
 */
export function readLines(input: Readable, maxBytes: number, onLine: (line: string) => void, onTooLong: () => void): () => void {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let stopped = false;
  const onData = (chunk: Buffer) => {
    if (stopped) return;
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, newline);
      if (pendingBytes + piece.length > maxBytes) return tooLong();
      const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      pending = [];
      pendingBytes = 0;
      start = newline + 1;
      onLine(line.toString("utf8"));
      if (stopped) return;
    }
    const rest = chunk.subarray(start);
    if (pendingBytes + rest.length > maxBytes) return tooLong();
    if (rest.length > 0) {
      pending.push(rest);
      pendingBytes += rest.length;
    }
  };
  function stop(): void {
    stopped = true;
    pending = [];
    input.off("data", onData);
  }
  function tooLong(): void {
    stop();
    // Keep draining, so the writer is not blocked on a full pipe while it is being ended.
    input.resume();
    onTooLong();
  }
  input.on("data", onData);
  return stop;
}
