import "server-only";
import { Redis } from "@upstash/redis";
import { requirePositiveTtl } from "./ttl";
import { StoreUnavailableError, type KeyValueStore } from "./types";

export interface UpstashStoreOptions {
  url: string;
  token: string;
  /** Upper bound for one store operation, retries included. Default 3000. */
  timeoutMs?: number;
}

export const DEFAULT_STORE_TIMEOUT_MS = 3000;

/** Network errors are retried this often (quickly: connection refused fails in microseconds). */
const NETWORK_RETRIES = 2;
const retryBackoffMs = (retryCount: number) => 50 * 2 ** retryCount;

/** Deletes KEYS[1] only while it still holds ARGV[1]; returns 1 when it deleted. */
const DELETE_IF_EQUALS_SCRIPT = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;

/** Sets KEYS[1] to ARGV[2] with PX ARGV[3] only while it still holds ARGV[1]; returns 1 when it set. */
const REPLACE_IF_EQUALS_SCRIPT = `if redis.call("GET", KEYS[1]) == ARGV[1] then redis.call("SET", KEYS[1], ARGV[2], "PX", ARGV[3]) return 1 end return 0`;

const deadlineByRedis = new WeakMap<Redis, number>();

/**
 * Runs one operation against Upstash with a hard deadline and turns every failure into
 * StoreUnavailableError. The client's own abort signal (same deadline) cancels the HTTP request;
 * the race here is the guarantee that no caller waits longer, whatever the client does.
 */
export async function withStoreDeadline<T>(redis: Redis, operation: string, run: () => Promise<T>): Promise<T> {
  const timeoutMs = deadlineByRedis.get(redis) ?? DEFAULT_STORE_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StoreUnavailableError(`Redis store unavailable: ${operation} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([run(), deadline]);
  } catch (error) {
    throw toStoreUnavailableError(operation, error, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The client's errors can quote the whole command (values included), so only a short reason is
 * kept and the original error is deliberately not attached as `cause`.
 */
function toStoreUnavailableError(operation: string, error: unknown, timeoutMs: number): StoreUnavailableError {
  if (error instanceof StoreUnavailableError) return error;
  return new StoreUnavailableError(`Redis store unavailable: ${operation} failed (${describeFailure(error, timeoutMs)})`);
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (!(error instanceof Error)) return "unknown error";
  if (error.name === "TimeoutError" || error.name === "AbortError") return `timed out after ${timeoutMs} ms`;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  if (error instanceof TypeError) return `network error${typeof code === "string" ? ` ${code}` : ""}`;
  // UpstashError messages read "<server error>, command was: <command>" or "Command failed: <server error>".
  const serverMessage = error.message.split(", command was:")[0]?.slice(0, 160) ?? "";
  return `${error.name}: ${serverMessage}`;
}

/**
 * A store on Upstash Redis over its REST API. TTLs live in Redis (SET ... PX). Values come back
 * verbatim: automatic JSON deserialisation is off, so "123" stays a string.
 */
export function createUpstashStore(options: UpstashStoreOptions): KeyValueStore & { readonly redis: Redis } {
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new RangeError("timeoutMs must be > 0");

  const redis = new Redis({
    url: options.url,
    token: options.token,
    automaticDeserialization: false,
    enableTelemetry: false,
    retry: { retries: NETWORK_RETRIES, backoff: retryBackoffMs },
    // A function, not a signal: the client then throws on abort (a plain signal would make it
    // return the abort reason as if it were a result) and every request gets a fresh deadline.
    signal: () => AbortSignal.timeout(timeoutMs),
  });
  deadlineByRedis.set(redis, timeoutMs);

  const run = <T>(operation: string, command: () => Promise<T>) => withStoreDeadline(redis, operation, command);

  return {
    kind: "upstash",
    redis,
    async get(key) {
      const value = await run("get", () => redis.get<string>(key));
      return value ?? null;
    },
    async set(key, value, ttlMs) {
      const px = requirePositiveTtl(ttlMs);
      await run("set", () => redis.set(key, value, { px }));
    },
    async delete(key) {
      await run("delete", () => redis.del(key));
    },
    async setIfAbsent(key, value, ttlMs) {
      const px = requirePositiveTtl(ttlMs);
      const reply = await run("setIfAbsent", () => redis.set(key, value, { nx: true, px }));
      return reply === "OK";
    },
    async deleteIfEquals(key, value) {
      const deleted = await run("deleteIfEquals", () => redis.eval<[string], number>(DELETE_IF_EQUALS_SCRIPT, [key], [value]));
      return deleted === 1;
    },
    async replaceIfEquals(key, expected, value, ttlMs) {
      const px = requirePositiveTtl(ttlMs);
      const replaced = await run("replaceIfEquals", () =>
        redis.eval<[string, string, string], number>(REPLACE_IF_EQUALS_SCRIPT, [key], [expected, value, String(px)]),
      );
      return replaced === 1;
    },
  };
}
