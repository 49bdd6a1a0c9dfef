/**
 * The session relay's protocol, for real: the script runs as its own node process (on a unix
 * socket, or on TCP as in a VM) with the echo child in codex's place, and every request is plain
 * HTTP from here. Each test ends with the relay and its child gone, checked by pid.
 */
import { request, type IncomingHttpHeaders } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { ECHO_CHILD, processAlive, startRelayProcess, waitUntil, type RelayProcess } from "@/test-support/session-relay-process";
import { readRelayLines } from "./relay-client";
import type { RelayAddress } from "./relay-http";
import { newRelayToken } from "./relay-token";
import { MAX_RELAY_LINE_BYTES, SESSION_RELAY_ERROR_PREFIX } from "./session-relay-script";

const relays: RelayProcess[] = [];
let token: string;

afterEach(async () => {
  for (const relay of relays.splice(0)) {
    await relay.kill();
    // codex's stdin closes with the relay: it never outlives it.
    await waitUntil(() => !processAlive(relay.codexPid));
  }
});

async function startRelay(options: { transport?: "tcp" | "socket"; command?: string[]; heartbeatMs?: number; abandonAfterMs?: number; bufferBytes?: number } = {}) {
  const generated = newRelayToken();
  token = generated.token;
  const relay = await startRelayProcess({ command: options.command ?? [process.execPath, ECHO_CHILD], tokenSha256: generated.sha256, ...options });
  relays.push(relay);
  return relay;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One plain HTTP request to the relay; the whole answer. */
function call(address: RelayAddress, method: string, path: string, options: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const target = "socketPath" in address ? { socketPath: address.socketPath } : { host: new URL(address.url).hostname, port: new URL(address.url).port };
  return new Promise((resolve, reject) => {
    const outgoing = request({ ...target, method, path, headers: options.headers }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    outgoing.once("error", reject);
    outgoing.end(options.body);
  });
}

const auth = () => ({ authorization: `Bearer ${token}` });
const input = (address: RelayAddress, id: string, line: string) =>
  call(address, "POST", "/input", { headers: { ...auth(), "idempotency-key": id, "content-type": "application/json" }, body: line });
const events = (address: RelayAddress, after: number) => call(address, "GET", `/events?after=${after}&follow=false`, { headers: auth() });
const eventLines = (answer: Answer) => answer.body.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record<string, unknown>);

/** Polls the relay (a process of its own) until `check` returns something. */
async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("still not there");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until codex has written `count` lines (the relay numbers them 1…count). */
const linesWritten = (address: RelayAddress, count: number) =>
  eventually(async () => {
    const lines = await readRelayLines(address, token, 0);
    return lines.length >= count ? lines : undefined;
  });

/** A live event stream; resolves each `next(predicate)` with the first matching event from then on. */
function follow(address: RelayAddress, after: number) {
  const seen: Record<string, unknown>[] = [];
  const waiters: { predicate: (event: Record<string, unknown>) => boolean; resolve: (event: Record<string, unknown>) => void }[] = [];
  const target = "socketPath" in address ? { socketPath: address.socketPath } : { host: new URL(address.url).hostname, port: new URL(address.url).port };
  let status = 0;
  const outgoing = request({ ...target, path: `/events?after=${after}`, headers: auth() }, (response) => {
    status = response.statusCode!;
    let partial = "";
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => {
      partial += chunk;
      for (let newline = partial.indexOf("\n"); newline !== -1; newline = partial.indexOf("\n")) {
        const event = JSON.parse(partial.slice(0, newline)) as Record<string, unknown>;
        partial = partial.slice(newline + 1);
        seen.push(event);
        for (const waiter of [...waiters]) {
          if (waiter.predicate(event)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(event);
          }
        }
      }
    });
  });
  outgoing.on("error", () => undefined);
  outgoing.end();
  return {
    seen,
    status: () => status,
    next: (predicate: (event: Record<string, unknown>) => boolean) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const earlier = seen.find(predicate);
        if (earlier) resolve(earlier);
        else waiters.push({ predicate, resolve });
      }),
    stop: () => outgoing.destroy(),
  };
}

describe("the session relay: lines in and out", () => {
  for (const transport of ["socket", "tcp"] as const) {
    it(`over ${transport === "socket" ? "a unix socket (bwrap)" : "TCP (a VM's exposed port)"}: numbers codex's lines, replays them from any seq, then follows live`, async () => {
      const relay = await startRelay({ transport });
      expect(await input(relay.address, "a", JSON.stringify({ do: "lines", count: 3 }))).toMatchObject({ status: 200, body: '{"written":true}' });
      await linesWritten(relay.address, 3);

      const stream = follow(relay.address, 1);
      const hello = await stream.next((event) => event.type === "hello");
      expect(hello).toEqual({ type: "hello", epoch: relay.epoch, firstSeq: 1, lastSeq: 3 });
      await stream.next((event) => event.seq === 3);
      await input(relay.address, "b", JSON.stringify({ say: "live" }));
      await stream.next((event) => event.seq === 4);
      expect(stream.seen.filter((event) => event.type === "line")).toEqual([
        { type: "line", seq: 2, line: '{"n":2}' },
        { type: "line", seq: 3, line: '{"n":3}' },
        { type: "line", seq: 4, line: '{"echo":{"say":"live"}}' },
      ]);
      stream.stop();
    });
  }

  it("refuses a missing or wrong token and one in the URL (401), and any request with an Origin header (403), before anything reaches codex", async () => {
    const relay = await startRelay();
    const line = JSON.stringify({ say: "should not arrive" });
    const refused = [
      await call(relay.address, "GET", "/healthz"),
      await call(relay.address, "GET", "/healthz", { headers: { authorization: "Bearer wrong" } }),
      await call(relay.address, "GET", `/events?after=0&token=${token}`),
      await call(relay.address, "POST", "/input", { headers: { "idempotency-key": "x", authorization: `Bearer ${token}x` }, body: line }),
      await call(relay.address, "POST", "/close", { headers: { authorization: `Basic ${token}` } }),
    ];
    expect(refused.map((answer) => [answer.status, answer.body])).toEqual(Array(5).fill([401, '{"error":"unauthorized"}']));
    const withOrigin = await call(relay.address, "POST", "/input", { headers: { ...auth(), origin: "http://127.0.0.1:3000", "idempotency-key": "y" }, body: line });
    expect([withOrigin.status, withOrigin.body]).toEqual([403, '{"error":"origin_refused"}']);
    expect((await call(relay.address, "GET", "/healthz", { headers: { ...auth(), origin: "null" } })).status).toBe(403);

    const health = await call(relay.address, "GET", "/healthz", { headers: auth() });
    expect(JSON.parse(health.body)).toEqual({ epoch: relay.epoch, codex: "running", firstSeq: 1, lastSeq: 0, followers: 0 });
    expect(await readRelayLines(relay.address, token, 0)).toEqual([]);
    expect(processAlive(relay.pid)).toBe(true);
  });

  it("writes each input id once, however often it is sent", async () => {
    const relay = await startRelay();
    const line = JSON.stringify({ say: "once" });
    expect((await input(relay.address, "same-id", line)).body).toBe('{"written":true}');
    expect((await input(relay.address, "same-id", line)).body).toBe('{"written":false}');
    await input(relay.address, "other-id", JSON.stringify({ say: "marker" }));
    const lines = await linesWritten(relay.address, 2);
    expect(lines.map((entry) => entry.line)).toEqual(['{"echo":{"say":"once"}}', '{"echo":{"say":"marker"}}']);
  });

  it("refuses input that is not one line (400), longer than 1 MiB (413), or without an id (400)", async () => {
    const relay = await startRelay();
    expect((await input(relay.address, "a", '{"a":1}\n{"b":2}')).status).toBe(400);
    expect((await input(relay.address, "b", "   ")).status).toBe(400);
    expect((await input(relay.address, "c", `"${"x".repeat(MAX_RELAY_LINE_BYTES)}"`)).status).toBe(413);
    expect((await call(relay.address, "POST", "/input", { headers: auth(), body: "{}" })).status).toBe(400);
    expect((await call(relay.address, "GET", "/input", { headers: auth() })).status).toBe(405);
    expect((await call(relay.address, "GET", "/nope", { headers: auth() })).status).toBe(404);
    expect((await call(relay.address, "GET", "/events?after=-1", { headers: auth() })).status).toBe(400);
    expect(await readRelayLines(relay.address, token, 0)).toEqual([]);
  });

  it("a line of exactly 1 MiB goes through; one byte more from codex ends the session", async () => {
    const relay = await startRelay();
    const stream = follow(relay.address, 0);
    await stream.next((event) => event.type === "hello");
    await input(relay.address, "fits", JSON.stringify({ do: "long_line", bytes: MAX_RELAY_LINE_BYTES }));
    const fits = await stream.next((event) => event.seq === 1);
    expect(Buffer.byteLength(fits.line as string)).toBe(MAX_RELAY_LINE_BYTES);

    await input(relay.address, "too-long", JSON.stringify({ do: "long_line", bytes: MAX_RELAY_LINE_BYTES + 1 }));
    expect(await stream.next((event) => event.type === "exit")).toEqual({ type: "exit", code: null, signal: "SIGKILL", reason: "line_too_long" });
    expect(stream.seen.filter((event) => event.type === "line")).toHaveLength(1);
    await relay.exited;
    await waitUntil(() => !processAlive(relay.codexPid));
  });

  it("keeps at most --buffer-bytes of lines: an attach from an evicted seq is answered 410 lines_evicted", async () => {
    const relay = await startRelay({ bufferBytes: MAX_RELAY_LINE_BYTES });
    // About 1 KB an event: 4,000 lines are more than 1 MiB.
    await input(relay.address, "many", JSON.stringify({ do: "lines", count: 4_000, pad: 1_000 }));
    const health = await eventually(async () => {
      const answer = JSON.parse((await call(relay.address, "GET", "/healthz", { headers: auth() })).body) as { firstSeq: number; lastSeq: number };
      return answer.lastSeq === 4_000 ? answer : undefined;
    });
    expect(health.firstSeq).toBeGreaterThan(1);
    const evicted = await call(relay.address, "GET", "/events?after=0", { headers: auth() });
    expect([evicted.status, JSON.parse(evicted.body)]).toEqual([410, { error: "lines_evicted", epoch: relay.epoch, firstSeq: health.firstSeq }]);
    const kept = eventLines(await events(relay.address, health.firstSeq - 1)).filter((event) => event.type === "line");
    expect(kept[0]!.seq).toBe(health.firstSeq);
    expect(kept.at(-1)!.seq).toBe(4_000);
    const bytes = kept.reduce((sum, event) => sum + Buffer.byteLength(`${JSON.stringify(event)}\n`), 0);
    expect(bytes).toBeLessThanOrEqual(MAX_RELAY_LINE_BYTES);
  });

});

describe("the session relay: how it ends", () => {
  it("close ends codex (stdin's end), answers how it ended, tells every follower, and the relay exits: nothing left", async () => {
    const relay = await startRelay({ transport: "tcp" });
    const stream = follow(relay.address, 0);
    await stream.next((event) => event.type === "hello");
    const closed = await call(relay.address, "POST", "/close", { headers: auth() });
    expect(JSON.parse(closed.body)).toEqual({ closed: true, reason: "closed", code: 0, signal: null });
    expect(await stream.next((event) => event.type === "exit")).toEqual({ type: "exit", code: 0, signal: null, reason: "closed" });
    expect(await relay.exited).toEqual({ code: 0, signal: null });
    await waitUntil(() => !processAlive(relay.codexPid));
  });

  it("a codex that ignores stdin's end and SIGTERM is killed (SIGKILL to its process group)", async () => {
    const relay = await startRelay({ command: [process.execPath, ECHO_CHILD, "--ignore-stdin-end", "--ignore-sigterm"] });
    const closed = await call(relay.address, "POST", "/close", { headers: auth() });
    expect(JSON.parse(closed.body)).toEqual({ closed: true, reason: "closed", code: null, signal: "SIGKILL" });
    expect(await relay.exited).toEqual({ code: 137, signal: null });
    await waitUntil(() => !processAlive(relay.codexPid));
  });

  it("codex exiting on its own ends the relay with its status, and a follower hears it", async () => {
    const relay = await startRelay();
    const stream = follow(relay.address, 0);
    await stream.next((event) => event.type === "hello");
    await input(relay.address, "bye", JSON.stringify({ do: "exit", code: 3 }));
    expect(await stream.next((event) => event.type === "exit")).toEqual({ type: "exit", code: 3, signal: null, reason: "exited" });
    expect(await relay.exited).toEqual({ code: 3, signal: null });
  });

  it("SIGTERM to the relay closes codex first", async () => {
    const relay = await startRelay();
    relay.child.kill("SIGTERM");
    expect(await relay.exited).toEqual({ code: 0, signal: null });
    await waitUntil(() => !processAlive(relay.codexPid));
  });

  it("stays up while a client follows (heartbeats keep coming), and ends codex once no client was heard from for --abandon-after-ms", async () => {
    const relay = await startRelay({ heartbeatMs: 50, abandonAfterMs: 300 });
    const stream = follow(relay.address, 0);
    // Twelve heartbeats (600 ms) while attached: twice the abandon time, and the relay is still there.
    await stream.next(() => stream.seen.filter((event) => event.type === "heartbeat").length >= 12);
    expect(processAlive(relay.pid)).toBe(true);
    expect(JSON.parse((await call(relay.address, "GET", "/healthz", { headers: auth() })).body)).toMatchObject({ followers: 1, codex: "running" });
    // The client vanishes (its connection just drops): the relay closes codex on its own.
    stream.stop();
    expect(await relay.exited).toEqual({ code: 0, signal: null });
    await waitUntil(() => !processAlive(relay.codexPid));
  });

  it("does not start without a token hash, an address or a command (exit 70, one line saying why)", async () => {
    await expect(startRelayProcess({ command: [], tokenSha256: newRelayToken().sha256 })).rejects.toThrow(`(70) before it listened: ${SESSION_RELAY_ERROR_PREFIX} the command to run comes after --`);
    await expect(startRelayProcess({ command: ["true"], tokenSha256: "short" })).rejects.toThrow(/\(70\).*--token-sha256/);
    await expect(startRelayProcess({ command: ["/nonexistent/codex"], tokenSha256: newRelayToken().sha256 })).rejects.toThrow(/\(70\).*cannot start the command: ENOENT/);
  });
});
