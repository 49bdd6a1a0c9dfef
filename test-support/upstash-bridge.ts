import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { connectResp, RedisReplyError, type RespConnection, type RespValue } from "./resp-connection";

interface UpstashBridgeOptions {
  redisPort: number;
  token: string;
  /** 0 or absent = a random free port; pass the old port to bring a closed bridge back. */
  port?: number;
}

export interface UpstashBridge {
  url: string;
  token: string;
  port: number;
  /** Upper-cased names of the commands sent to Redis so far, in order (no arguments: no values). */
  commandNames(): string[];
  close(): Promise<void>;
}

const commandSchema = z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).min(1);
const batchSchema = z.array(commandSchema).min(1);

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

/**
 * Upstash's Lua scripts open with `#!lua flags=allow-key-locking`, a flag only Upstash knows.
 * Drop that flag (and the shebang line when no flag is left) so stock Redis accepts the script.
 */
function stripUpstashFlags(script: string): string {
  const match = /^#!lua([^\n]*)(\n|$)/.exec(script);
  if (!match?.[1]?.includes("allow-key-locking")) return script;
  const flags = /flags=(\S*)/.exec(match[1])?.[1]?.split(",").filter((flag) => flag && flag !== "allow-key-locking") ?? [];
  const rest = script.slice(match[0].length);
  return flags.length > 0 ? `#!lua flags=${flags.join(",")}\n${rest}` : rest;
}

/**
 * Rewrites script commands for stock Redis. The client names scripts by the sha1 of the text it
 * knows (with the flag line), Redis by the sha1 of what it was given, so the bridge remembers
 * "client sha -> Redis sha" whenever it strips a script; an unknown sha reaches Redis unchanged
 * and gets NOSCRIPT, and the client then falls back to EVAL.
 */
function createScriptTranslator() {
  const redisShaByClientSha = new Map<string, string>();
  const toRedisSha = (sha: string) => redisShaByClientSha.get(sha.toLowerCase()) ?? sha;
  const strip = (script: string) => {
    const stripped = stripUpstashFlags(script);
    if (stripped !== script) redisShaByClientSha.set(sha1(script), sha1(stripped));
    return stripped;
  };
  return (args: string[]): { args: string[]; mapReply?: (reply: RespValue) => RespValue } => {
    const name = args[0]?.toUpperCase();
    const sub = args[1]?.toUpperCase();
    if ((name === "EVAL" || name === "EVAL_RO") && args[1] !== undefined) {
      return { args: [args[0]!, strip(args[1]), ...args.slice(2)] };
    }
    if ((name === "EVALSHA" || name === "EVALSHA_RO") && args[1] !== undefined) {
      return { args: [args[0]!, toRedisSha(args[1]), ...args.slice(2)] };
    }
    if (name === "SCRIPT" && sub === "LOAD" && args[2] !== undefined) {
      const clientSha = sha1(args[2]);
      return {
        args: [args[0]!, args[1]!, strip(args[2])],
        mapReply: (reply) => (typeof reply === "string" ? clientSha : reply),
      };
    }
    if (name === "SCRIPT" && sub === "EXISTS") {
      return { args: [...args.slice(0, 2), ...args.slice(2).map(toRedisSha)] };
    }
    return { args };
  };
}

/** Upstash-Encoding: base64 — every string but exactly "OK" is base64 of its UTF-8 bytes. */
function encodeResult(value: RespValue, base64: boolean): unknown {
  if (value instanceof RedisReplyError) return encodeResult(value.message, base64);
  if (Array.isArray(value)) return value.map((item) => encodeResult(item, base64));
  if (typeof value === "string" && base64 && value !== "OK") return Buffer.from(value, "utf8").toString("base64");
  return value;
}

function toRedisArgument(value: string | number | boolean | null): string {
  return value === null ? "" : String(value);
}

class BridgeHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A bridge brought back on its old port waits 100, 200, 400, 800 ms between tries: at most 1.5 s in all. */
const REBIND_ATTEMPTS = 5;
const REBIND_FIRST_BACKOFF_MS = 100;

function listenOnce(server: Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", onError);
      resolve();
    });
  });
}

/**
 * Listens on `port` (0 = any free port). A given port was the bridge's before it closed; another
 * process (a parallel test file) may have bound it for a moment in between, so retry a few times
 * with a short, bounded back-off, then fail saying so.
 */
async function listenOn(server: Server, port: number): Promise<void> {
  let backoffMs = REBIND_FIRST_BACKOFF_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await listenOnce(server, port);
    } catch (error) {
      const portTaken = (error as NodeJS.ErrnoException).code === "EADDRINUSE";
      if (port === 0 || !portTaken) throw error;
      if (attempt >= REBIND_ATTEMPTS) {
        throw new Error(
          `the Upstash bridge could not listen on port ${port} again: another process holds the port ` +
            `(still EADDRINUSE after ${REBIND_ATTEMPTS} attempts)`,
          { cause: error },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, backoffMs));
      backoffMs *= 2;
    }
  }
}

/**
 * A test-only HTTP server that speaks the Upstash REST dialect in front of a real Redis:
 * POST / (one command), POST /pipeline, POST /multi-exec; Bearer auth; base64 replies on request.
 * When Redis is down it answers 503 at once, as a failing Upstash endpoint would.
 */
export async function startUpstashBridge(options: UpstashBridgeOptions): Promise<UpstashBridge> {
  const expectedAuthorization = Buffer.from(`Bearer ${options.token}`);
  const translate = createScriptTranslator();
  const seen: string[] = [];
  let current: RespConnection | undefined;
  let connecting: Promise<RespConnection> | undefined;

  /** One shared connection, opened lazily and reopened after Redis went away. */
  function connection(): Promise<RespConnection> {
    if (current && !current.closed) return Promise.resolve(current);
    connecting ??= connectResp(options.redisPort)
      .then((opened) => (current = opened))
      .finally(() => (connecting = undefined));
    return connecting;
  }

  async function send(commands: string[][]): Promise<RespValue[]> {
    for (const command of commands) seen.push(command[0]?.toUpperCase() ?? "");
    try {
      return await (await connection()).send(commands);
    } catch {
      throw new BridgeHttpError(503, "Redis is unavailable");
    }
  }

  async function runCommands(commands: string[][]): Promise<RespValue[]> {
    const prepared = commands.map(translate);
    const replies = await send(prepared.map((command) => command.args));
    return replies.map((reply, i) => prepared[i]?.mapReply?.(reply) ?? reply);
  }

  /** MULTI ... EXEC in one write on the shared connection, so no other command can interleave. */
  async function runTransaction(commands: string[][]): Promise<RespValue[]> {
    const prepared = commands.map(translate);
    const replies = await send([["MULTI"], ...prepared.map((command) => command.args), ["EXEC"]]);
    const exec = replies.at(-1);
    if (!Array.isArray(exec)) {
      throw new BridgeHttpError(400, exec instanceof RedisReplyError ? exec.message : "Transaction aborted");
    }
    return exec.map((reply, i) => prepared[i]?.mapReply?.(reply) ?? reply);
  }

  function isAuthorized(request: IncomingMessage): boolean {
    const given = Buffer.from(request.headers.authorization ?? "");
    return given.length === expectedAuthorization.length && timingSafeEqual(given, expectedAuthorization);
  }

  async function readJson(request: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    try {
      return JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      throw new BridgeHttpError(400, "Request body is not valid JSON");
    }
  }

  function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new BridgeHttpError(400, "Request body must be a Redis command (an array of strings)");
    return parsed.data;
  }

  const toArgs = (command: z.infer<typeof commandSchema>) => command.map(toRedisArgument);

  async function answer(request: IncomingMessage): Promise<{ status: number; body: unknown }> {
    if (!isAuthorized(request)) return { status: 401, body: { error: "Unauthorized" } };
    if (request.method !== "POST") return { status: 405, body: { error: "Method not allowed" } };
    const base64 = request.headers["upstash-encoding"]?.toString().toLowerCase() === "base64";
    const entry = (reply: RespValue) =>
      reply instanceof RedisReplyError ? { error: reply.message } : { result: encodeResult(reply, base64) };
    const path = new URL(request.url ?? "/", "http://bridge").pathname.replace(/\/+$/, "") || "/";

    if (path === "/") {
      const [reply] = await runCommands([toArgs(parseBody(commandSchema, await readJson(request)))]);
      return { status: reply instanceof RedisReplyError ? 400 : 200, body: entry(reply ?? null) };
    }
    if (path === "/pipeline") {
      const replies = await runCommands(parseBody(batchSchema, await readJson(request)).map(toArgs));
      return { status: 200, body: replies.map(entry) };
    }
    if (path === "/multi-exec") {
      const replies = await runTransaction(parseBody(batchSchema, await readJson(request)).map(toArgs));
      return { status: 200, body: replies.map(entry) };
    }
    return { status: 404, body: { error: "Not found" } };
  }

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    answer(request)
      .catch((error: unknown) =>
        error instanceof BridgeHttpError
          ? { status: error.status, body: { error: error.message } }
          : { status: 500, body: { error: "Bridge failure" } },
      )
      .then(({ status, body }) => {
        response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      });
  });

  await listenOn(server, options.port ?? 0);
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    token: options.token,
    port,
    commandNames: () => [...seen],
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      (await connecting?.catch(() => undefined))?.close();
      current?.close();
    },
  };
}
