/**
 * Tests of the test-support Upstash REST bridge (test-support/upstash-bridge.ts). They live here
 * because vitest's include covers lib/**, and the stores are what the bridge exists for.
 */
import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedisServer, type RedisServer } from "@/test-support/redis-server";
import { startUpstashBridge, type UpstashBridge } from "@/test-support/upstash-bridge";
import { timed, uniqueKey } from "@/test-support/store-helpers";

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

describe("Upstash REST bridge", () => {
  const token = `bridge-token-${randomUUID()}`;
  let redis: RedisServer;
  let bridge: UpstashBridge;

  beforeAll(async () => {
    redis = await startRedisServer();
    bridge = await startUpstashBridge({ redisPort: redis.port, token });
  });
  afterAll(async () => {
    await bridge?.close();
    await redis?.stop();
  });

  async function call(path: string, body: unknown, options: { base64?: boolean; auth?: string | null; method?: string } = {}) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    const auth = options.auth === undefined ? `Bearer ${token}` : options.auth;
    if (auth !== null) headers.authorization = auth;
    if (options.base64 ?? true) headers["upstash-encoding"] = "base64";
    const response = await fetch(`${bridge.url}${path}`, {
      method: options.method ?? "POST",
      headers,
      body: options.method === "GET" ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  }

  describe("auth", () => {
    it.each([
      ["no Authorization header", null],
      ["a wrong token", "Bearer not-the-token"],
      ["the token without Bearer", token],
      ["a token with a suffix", `Bearer ${token}x`],
    ])("answers 401 for %s", async (_label, auth) => {
      const reply = await call("/", ["ping"], { auth });
      expect(reply).toEqual({ status: 401, body: { error: "Unauthorized" } });
    });

    it("accepts the right Bearer token", async () => {
      expect(await call("/", ["ping"], { base64: false })).toEqual({ status: 200, body: { result: "PONG" } });
    });
  });

  describe("base64 encoding", () => {
    it("leaves exactly OK alone and encodes every other string", async () => {
      const key = uniqueKey("enc");
      expect(await call("/", ["set", key, "héllo 🙂"])).toEqual({ status: 200, body: { result: "OK" } });
      expect(await call("/", ["get", key])).toEqual({ status: 200, body: { result: b64("héllo 🙂") } });
      expect(await call("/", ["ping"])).toEqual({ status: 200, body: { result: b64("PONG") } });
      expect(await call("/", ["echo", "ok"])).toEqual({ status: 200, body: { result: b64("ok") } });
    });

    it("sends plain strings without the Upstash-Encoding header", async () => {
      const key = uniqueKey("plain");
      await call("/", ["set", key, "plain text"]);
      expect(await call("/", ["get", key], { base64: false })).toEqual({ status: 200, body: { result: "plain text" } });
    });

    it("passes integers and null through and encodes recursively inside arrays", async () => {
      const key = uniqueKey("nested");
      expect(await call("/", ["incrby", key, 41])).toEqual({ status: 200, body: { result: 41 } });
      expect(await call("/", ["get", uniqueKey("missing")])).toEqual({ status: 200, body: { result: null } });
      const script = `return {1, "a", {"b", 2, {"OK"}}, false}`;
      expect(await call("/", ["eval", script, 0])).toEqual({
        status: 200,
        body: { result: [1, b64("a"), [b64("b"), 2, ["OK"]], null] },
      });
    });

    it("turns JSON numbers, booleans and null in a command into Redis arguments", async () => {
      const key = uniqueKey("args");
      expect((await call("/", ["set", key, 12.5, "px", 60_000])).status).toBe(200);
      expect(await call("/", ["get", key], { base64: false })).toEqual({ status: 200, body: { result: "12.5" } });
      expect(await call("/", ["echo", true], { base64: false })).toEqual({ status: 200, body: { result: "true" } });
      expect(await call("/", ["echo", null], { base64: false })).toEqual({ status: 200, body: { result: "" } });
    });
  });

  describe("errors", () => {
    it("answers a Redis error with 400 {error}", async () => {
      const key = uniqueKey("err");
      await call("/", ["set", key, "not a number"]);
      const reply = await call("/", ["incr", key]);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: expect.stringMatching(/^ERR value is not an integer/) });
      expect((await call("/", ["nosuchcommand"])).body).toEqual({ error: expect.stringMatching(/^ERR unknown command/) });
    });

    it("rejects a body that is not a command", async () => {
      for (const body of [{ command: "get" }, [], [["nested"]], "get"]) {
        const reply = await call("/", body);
        expect(reply.status).toBe(400);
        expect(reply.body).toEqual({ error: expect.any(String) });
      }
    });

    it("answers 404 for an unknown path and 405 for GET", async () => {
      expect((await call("/nowhere", ["ping"])).status).toBe(404);
      expect((await call("/", undefined, { method: "GET" })).status).toBe(405);
    });
  });

  describe("/pipeline", () => {
    it("runs each command and answers result or error per command", async () => {
      const key = uniqueKey("pipe");
      const reply = await call("/pipeline", [
        ["set", key, "v"],
        ["get", key],
        ["incr", key],
        ["get", uniqueKey("missing")],
        ["del", key],
      ]);
      expect(reply).toEqual({
        status: 200,
        body: [
          { result: "OK" },
          { result: b64("v") },
          { error: expect.stringMatching(/^ERR value is not an integer/) },
          { result: null },
          { result: 1 },
        ],
      });
    });

    it("keeps the replies of concurrent pipelines apart", async () => {
      const keys = Array.from({ length: 20 }, (_, i) => uniqueKey(`pipe-${i}`));
      const replies = await Promise.all(
        keys.map((key, i) => call("/pipeline", [["set", key, `value-${i}`], ["get", key]], { base64: false })),
      );
      replies.forEach((reply, i) => expect(reply.body).toEqual([{ result: "OK" }, { result: `value-${i}` }]));
    });
  });

  describe("/multi-exec", () => {
    it("runs the commands as one transaction and answers each result", async () => {
      const key = uniqueKey("tx");
      const reply = await call("/multi-exec", [
        ["set", key, "1"],
        ["incr", key],
        ["get", key],
      ]);
      expect(reply).toEqual({ status: 200, body: [{ result: "OK" }, { result: 2 }, { result: b64("2") }] });
    });

    it("reports a runtime error of one command inside the results", async () => {
      const key = uniqueKey("tx-err");
      const reply = await call("/multi-exec", [
        ["set", key, "x"],
        ["incr", key],
      ]);
      expect(reply.body).toEqual([{ result: "OK" }, { error: expect.stringMatching(/^ERR value is not an integer/) }]);
    });

    it("aborts the whole transaction when a command cannot be queued", async () => {
      const key = uniqueKey("tx-abort");
      const reply = await call("/multi-exec", [["set", key, "x"], ["nosuchcommand"]]);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: expect.stringMatching(/^EXECABORT/) });
      expect(await call("/", ["exists", key])).toEqual({ status: 200, body: { result: 0 } });
    });
  });

  describe("Lua scripts with Upstash's flag line", () => {
    it("strips `#!lua flags=allow-key-locking` for EVAL", async () => {
      const script = `#!lua flags=allow-key-locking\nreturn redis.call("SET", KEYS[1], ARGV[1])`;
      const key = uniqueKey("lua");
      expect(await call("/", ["eval", script, 1, key, "stored"])).toEqual({ status: 200, body: { result: "OK" } });
      expect(await call("/", ["get", key], { base64: false })).toEqual({ status: 200, body: { result: "stored" } });
    });

    it("keeps the other flags of the line", async () => {
      const script = `#!lua flags=allow-key-locking,no-writes\nreturn redis.call("SET", KEYS[1], "x")`;
      const reply = await call("/", ["eval", script, 1, uniqueKey("ro")]);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: expect.stringMatching(/Write commands are not allowed from read-only scripts/) });
    });

    it("answers NOSCRIPT for an unknown hash, then maps the client's hash once the script ran", async () => {
      const script = `#!lua flags=allow-key-locking\nreturn "${randomUUID()}:" .. ARGV[1]`;
      const clientHash = sha1(script);
      const before = await call("/", ["evalsha", clientHash, 0, "a"]);
      expect(before.status).toBe(400);
      expect(before.body).toEqual({ error: expect.stringMatching(/^NOSCRIPT/) });

      const evaluated = await call("/", ["eval", script, 0, "b"], { base64: false });
      expect(evaluated.body).toEqual({ result: expect.stringMatching(/:b$/) });
      expect(await call("/pipeline", [["evalsha", clientHash, 0, "c"]], { base64: false })).toEqual({
        status: 200,
        body: [{ result: expect.stringMatching(/:c$/) }],
      });
    });

    it("answers SCRIPT LOAD with the hash of the client's text, usable by EVALSHA", async () => {
      const script = `#!lua flags=allow-key-locking\nreturn "${randomUUID()}"`;
      const loaded = await call("/", ["script", "load", script], { base64: false });
      expect(loaded).toEqual({ status: 200, body: { result: sha1(script) } });
      expect(await call("/", ["script", "exists", sha1(script)])).toEqual({ status: 200, body: { result: [1] } });
      expect((await call("/", ["evalsha", sha1(script), 0])).status).toBe(200);
    });
  });

  describe("when Redis is down", () => {
    it("answers 503 at once, and serves again after Redis is back", async () => {
      await redis.stop();
      const down = await timed(() => call("/", ["ping"]));
      expect(down.value).toEqual({ status: 503, body: { error: "Redis is unavailable" } });
      expect(down.elapsedMs).toBeLessThan(1_000);

      await redis.start();
      expect(await call("/", ["ping"], { base64: false })).toEqual({ status: 200, body: { result: "PONG" } });
    });
  });
});

describe("redis-server helper", () => {
  it("stop() is idempotent and start() brings Redis back on the same port", async () => {
    const redis = await startRedisServer();
    try {
      expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
      await redis.stop();
      await redis.stop();
      const bridge = await startUpstashBridge({ redisPort: redis.port, token: "t" });
      try {
        expect((await fetch(bridge.url, { method: "POST", headers: { authorization: "Bearer t" }, body: '["ping"]' })).status).toBe(503);
        await redis.start();
        const reply = await fetch(bridge.url, { method: "POST", headers: { authorization: "Bearer t" }, body: '["ping"]' });
        expect(await reply.json()).toEqual({ result: "PONG" });
      } finally {
        await bridge.close();
      }
    } finally {
      await redis.stop();
    }
  });
});
