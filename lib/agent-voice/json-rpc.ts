import "server-only";
/**
 * Newline-delimited JSON-RPC as `codex app-server` speaks it on stdio: one JSON object per line,
 * no "jsonrpc" field. Our requests use our own ids; the server's requests use its own counter.
 */
import type { Readable, Writable } from "node:stream";

interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

/** An error answer (from the server to our request, or ours to a server request). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

export const METHOD_NOT_FOUND = -32601;
const INTERNAL_ERROR = -32603;

export interface RpcHandlers {
  onNotification(method: string, params: unknown): void;
  /** Answers one server→client request: the result, or throw an RpcError. */
  onRequest(method: string, params: unknown): Promise<unknown>;
}

interface Waiting {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export interface RpcConnection {
  request(method: string, params: unknown, timeoutMs: number): Promise<unknown>;
  notify(method: string, params?: unknown): void;
  /** Fails every open request (the process is gone). */
  close(reason: string): void;
}

/**
 * Calls `onLine` with each complete line of `input` (UTF-8, without its newline). A line longer
 * than `maxBytes` is never held whole: reading stops and `onTooLong` is called, once.
 */
function readLines(input: Readable, maxBytes: number, onLine: (line: string) => void, onTooLong: () => void): () => void {
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

export function createRpcConnection(
  input: Readable,
  output: Writable,
  handlers: RpcHandlers,
  limits: { maxLineBytes: number; onLineTooLong(): void },
): RpcConnection {
  const waiting = new Map<number, Waiting>();
  let nextId = 1;
  let closed = false;
  // A write after the process died raises EPIPE on the stream: the exit handler reports that.
  output.on("error", () => undefined);

  function send(message: Record<string, unknown>): void {
    if (closed || output.destroyed || output.writableEnded) return;
    output.write(`${JSON.stringify(message)}\n`);
  }

  function answer(id: unknown, method: string, params: unknown): void {
    handlers.onRequest(method, params).then(
      (result) => send({ id, result }),
      (error: unknown) => {
        const body: RpcErrorBody =
          error instanceof RpcError
            ? { code: error.code, message: error.message }
            : { code: INTERNAL_ERROR, message: "The client could not handle this request." };
        send({ id, error: body });
      },
    );
  }

  function settle(id: number, message: { result?: unknown; error?: RpcErrorBody }): void {
    const entry = waiting.get(id);
    if (!entry) return;
    waiting.delete(id);
    clearTimeout(entry.timer);
    if (message.error) entry.reject(new RpcError(message.error.code ?? INTERNAL_ERROR, String(message.error.message ?? "error")));
    else entry.resolve(message.result);
  }

  const stopReading = readLines(input, limits.maxLineBytes, onLine, limits.onLineTooLong);
  function onLine(line: string): void {
    if (line.trim() === "") return;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return; // Not protocol: ignored (logs go to stderr, but be lenient).
    }
    if (typeof message !== "object" || message === null) return;
    const { id, method } = message;
    if (typeof method === "string" && id !== undefined) answer(id, method, message.params);
    else if (typeof method === "string") handlers.onNotification(method, message.params);
    else if (typeof id === "number") settle(id, message as { result?: unknown; error?: RpcErrorBody });
  }

  return {
    request(method, params, timeoutMs) {
      if (closed) return Promise.reject(new RpcError(INTERNAL_ERROR, "connection closed"));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new RpcError(INTERNAL_ERROR, `${method} timed out`));
        }, timeoutMs);
        waiting.set(id, { resolve, reject, timer });
        send({ method, id, params });
      });
    },
    notify(method, params) {
      send(params === undefined ? { method } : { method, params });
    },
    close(reason) {
      if (closed) return;
      closed = true;
      stopReading();
      for (const [id, entry] of waiting) {
        clearTimeout(entry.timer);
        entry.reject(new RpcError(INTERNAL_ERROR, reason));
        waiting.delete(id);
      }
    },
  };
}
