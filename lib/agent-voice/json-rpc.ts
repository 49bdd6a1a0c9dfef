import "server-only";
/**
 * Newline-delimited JSON-RPC as `codex app-server` speaks it: one JSON object per line, no
 * "jsonrpc" field, over whatever channel the sandbox gives (sandbox/types.ts). Our requests use our
 * own ids; the server's requests use its own counter.
 */

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
  /** Answers one server→client request: the result, or throw an RpcError. `id` is the request's own. */
  onRequest(method: string, params: unknown, id: unknown): Promise<unknown>;
}

interface Waiting {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export interface RpcConnection {
  request(method: string, params: unknown, timeoutMs: number): Promise<unknown>;
  notify(method: string, params?: unknown): void;
  /** Answers a server request this connection did not hear (another instance did, and handed it over). */
  respond(id: unknown, result: unknown): void;
  /** The id our next request gets: a connection that takes over from another goes on from it. */
  nextRequestId(): number;
  /** Fails every open request (the process is gone). */
  close(reason: string): void;
}

/** The two things the connection needs of a channel: send a line, hear each line. */
interface LineChannel {
  send(line: string): void;
  onLine(listener: (line: string) => void): void;
}

export function createRpcConnection(channel: LineChannel, handlers: RpcHandlers, firstId = 1): RpcConnection {
  const waiting = new Map<number, Waiting>();
  let nextId = firstId;
  let closed = false;
  function send(message: Record<string, unknown>): void {
    if (closed) return;
    channel.send(JSON.stringify(message));
  }

  function answer(id: unknown, method: string, params: unknown): void {
    handlers.onRequest(method, params, id).then(
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

  channel.onLine(onLine);
  function onLine(line: string): void {
    if (closed || line.trim() === "") return;
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
    respond(id, result) {
      send({ id, result });
    },
    nextRequestId: () => nextId,
    close(reason) {
      if (closed) return;
      closed = true;
      for (const [id, entry] of waiting) {
        clearTimeout(entry.timer);
        entry.reject(new RpcError(INTERNAL_ERROR, reason));
        waiting.delete(id);
      }
    },
  };
}
