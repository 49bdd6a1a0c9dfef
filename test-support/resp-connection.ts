import { connect, type Socket } from "node:net";

/** An error reply from Redis (`-ERR ...`). Returned as a value, so a batch can mix errors and results. */
export class RedisReplyError {
  constructor(readonly message: string) {}
}

/** A RESP2 reply: simple/bulk string, integer, nil, error, or array of those. */
export type RespValue = string | number | null | RedisReplyError | RespValue[];

export interface RespConnection {
  /** Sends the commands in one write and resolves with their replies, in order. */
  send(commands: readonly (readonly string[])[]): Promise<RespValue[]>;
  readonly closed: boolean;
  close(): void;
}

const CRLF = "\r\n";

function encodeCommand(args: readonly string[]): string {
  let out = `*${args.length}${CRLF}`;
  for (const arg of args) out += `$${Buffer.byteLength(arg)}${CRLF}${arg}${CRLF}`;
  return out;
}

/** Parses one reply at `start`; undefined when the buffer does not hold all of it yet. */
function parseReply(buffer: Buffer, start: number): { value: RespValue; end: number } | undefined {
  const lineEnd = buffer.indexOf(CRLF, start);
  if (lineEnd === -1) return undefined;
  const type = String.fromCharCode(buffer[start] ?? 0);
  const line = buffer.toString("utf8", start + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case "+":
      return { value: line, end: next };
    case "-":
      return { value: new RedisReplyError(line), end: next };
    case ":":
      return { value: Number(line), end: next };
    case "$": {
      const length = Number(line);
      if (length < 0) return { value: null, end: next };
      if (buffer.length < next + length + 2) return undefined;
      return { value: buffer.toString("utf8", next, next + length), end: next + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { value: null, end: next };
      const items: RespValue[] = [];
      let offset = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, offset);
        if (!item) return undefined;
        items.push(item.value);
        offset = item.end;
      }
      return { value: items, end: offset };
    }
    default:
      throw new Error(`Unexpected RESP reply type ${JSON.stringify(type)}`);
  }
}

/**
 * A minimal Redis client over one TCP connection. Replies arrive in command order, so a FIFO of
 * waiting callers is all the bookkeeping needed; a batch is written at once, which keeps a
 * MULTI ... EXEC block contiguous. Any socket failure or a reply slower than `timeoutMs` closes
 * the connection and fails everything still waiting.
 */
export function connectResp(port: number, options: { host?: string; timeoutMs?: number } = {}): Promise<RespConnection> {
  const { host = "127.0.0.1", timeoutMs = 5000 } = options;
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ port, host });
    const waiting: { resolve(value: RespValue): void; reject(error: Error): void }[] = [];
    let pending: Buffer = Buffer.alloc(0);
    let closed = false;

    const failAll = (error: Error) => {
      closed = true;
      for (const waiter of waiting.splice(0)) waiter.reject(error);
    };

    socket.setNoDelay(true);
    socket.setTimeout(timeoutMs, () => {
      if (waiting.length > 0) socket.destroy(new Error(`Redis did not reply within ${timeoutMs} ms`));
    });
    socket.on("data", (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let offset = 0;
      for (;;) {
        const reply = parseReply(pending, offset);
        if (!reply) break;
        offset = reply.end;
        waiting.shift()?.resolve(reply.value);
      }
      pending = pending.subarray(offset);
    });
    socket.on("error", (error) => {
      failAll(error);
      reject(error);
    });
    socket.on("close", () => failAll(new Error("Redis connection closed")));
    socket.once("connect", () => {
      resolve({
        get closed() {
          return closed;
        },
        send(commands) {
          if (closed) return Promise.reject(new Error("Redis connection closed"));
          const replies = commands.map(
            () => new Promise<RespValue>((resolveReply, rejectReply) => waiting.push({ resolve: resolveReply, reject: rejectReply })),
          );
          socket.write(commands.map(encodeCommand).join(""));
          return Promise.all(replies);
        },
        close() {
          closed = true;
          socket.end();
        },
      });
    });
  });
}
