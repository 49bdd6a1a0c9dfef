import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstashBridge } from "@/test-support/upstash-bridge";
import { createRateLimiter } from "./rate-limit";
import { startUpstashStack, timed, uniqueKey } from "@/test-support/store-helpers";
import { StoreUnavailableError, type KeyValueStore, type RateLimiter } from "./types";
import { createUpstashStore, DEFAULT_STORE_TIMEOUT_MS } from "./upstash-store";

type Stack = Awaited<ReturnType<typeof startUpstashStack>>;

/** Runs every store operation and the limiter; each must fail with StoreUnavailableError within `boundMs`. */
async function expectEveryOperationUnavailable(store: KeyValueStore, limiter: RateLimiter, boundMs: number) {
  const key = uniqueKey("outage");
  const operations: [string, () => Promise<unknown>][] = [
    ["get", () => store.get(key)],
    ["set", () => store.set(key, "v", 60_000)],
    ["delete", () => store.delete(key)],
    ["setIfAbsent", () => store.setIfAbsent(key, "v", 60_000)],
    ["deleteIfEquals", () => store.deleteIfEquals(key, "v")],
    ["rate limit", () => limiter.limit(uniqueKey("caller"))],
  ];
  const outcomes = await Promise.all(operations.map(([, run]) => timed(run)));
  outcomes.forEach((outcome, i) => {
    const name = operations[i]![0];
    expect(outcome.error, name).toBeInstanceOf(StoreUnavailableError);
    expect((outcome.error as StoreUnavailableError).code, name).toBe("store_unavailable");
    expect(outcome.elapsedMs, name).toBeLessThan(boundMs);
  });
  return outcomes.map((outcome) => outcome.error as StoreUnavailableError);
}

describe("Upstash store outages", () => {
  let stack: Stack;
  let limiter: RateLimiter;
  beforeAll(async () => {
    stack = await startUpstashStack();
    limiter = createRateLimiter(stack.store, { prefix: uniqueKey("outage-limit"), limit: 5, windowMs: 60_000 });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("bridge unreachable: fails fast with StoreUnavailableError, then serves the same data again", async () => {
    const sessionKey = uniqueKey("session");
    await stack.store.set(sessionKey, "sealed-session", 60_000);

    await stack.bridge.close();
    const errors = await expectEveryOperationUnavailable(stack.store, limiter, DEFAULT_STORE_TIMEOUT_MS + 500);
    for (const error of errors) expect(error.message).not.toContain("sealed-session");

    stack.bridge = await startUpstashBridge({ redisPort: stack.redis.port, token: stack.token, port: stack.bridge.port });
    expect(await stack.store.get(sessionKey)).toBe("sealed-session");
    expect((await limiter.limit("after-outage")).success).toBe(true);
  });

  it("Redis down behind the bridge: 5xx becomes StoreUnavailableError, and a restarted Redis serves again", async () => {
    await stack.redis.stop();
    const response = await fetch(stack.bridge.url, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.token}` },
      body: JSON.stringify(["ping"]),
    });
    expect(response.status).toBe(503);
    await expectEveryOperationUnavailable(stack.store, limiter, DEFAULT_STORE_TIMEOUT_MS + 500);

    await stack.redis.start();
    const key = uniqueKey("after-restart");
    await stack.store.set(key, "fresh", 60_000);
    expect(await stack.store.get(key)).toBe("fresh");
    expect((await limiter.limit(uniqueKey("caller"))).success).toBe(true);
  });
});

describe("Upstash store on a persistent Redis that restarts", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startUpstashStack({}, { persistent: true });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("loses no data across a Redis stop and start", async () => {
    const sessionKey = uniqueKey("session");
    await stack.store.set(sessionKey, "sealed-session", 60_000);

    await stack.redis.stop();
    await expect(stack.store.get(sessionKey)).rejects.toBeInstanceOf(StoreUnavailableError);

    await stack.redis.start();
    expect(await stack.store.get(sessionKey)).toBe("sealed-session");
  });
});

describe("Upstash store against an endpoint that never answers", () => {
  const timeoutMs = 800;
  let server: Server;
  const sockets = new Set<Socket>();
  let store: ReturnType<typeof createUpstashStore>;

  beforeAll(async () => {
    // Accepts connections and reads requests, but never writes a byte back.
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    store = createUpstashStore({ url: `http://127.0.0.1:${port}`, token: "never-answered", timeoutMs });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("gives up after timeoutMs with StoreUnavailableError instead of hanging", async () => {
    const limiter = createRateLimiter(store, { prefix: "hang", limit: 5, windowMs: 60_000 });
    const errors = await expectEveryOperationUnavailable(store, limiter, timeoutMs + 700);
    for (const error of errors) expect(error.message).toMatch(/timed out after 800 ms/);
  });

  it("really waited for the deadline (the timeout path, not a quick refusal)", async () => {
    const outcome = await timed(() => store.get("k"));
    expect(outcome.error).toBeInstanceOf(StoreUnavailableError);
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(timeoutMs - 50);
  });
});
