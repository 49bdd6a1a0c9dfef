/**
 * The server's side of the session relay against the real relay process (the echo child in
 * codex's place): attach from a seq, a second client after the first vanished, dropped and silent
 * connections (through a TCP proxy the test can cut or freeze), resends, a relay that restarted or
 * went away, and close. Each test ends with the relay and its child gone, checked by pid.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ECHO_CHILD, processAlive, startRelayProcess, waitUntil, type RelayProcess } from "@/test-support/session-relay-process";
import { openRelayChannel, readRelayLines, RelayError, type RelayChannel, type RelayLine } from "./relay-client";
import { newRelayToken } from "./relay-token";
import { MAX_RELAY_LINE_BYTES } from "./session-relay-script";

const relays: RelayProcess[] = [];
const channels: RelayChannel[] = [];
const proxies: CuttableProxy[] = [];
const folders: string[] = [];
let token: string;
let tokenSha256: string;

afterEach(async () => {
  for (const channel of channels.splice(0)) channel.detach();
  for (const proxy of proxies.splice(0)) await proxy.close();
  for (const relay of relays.splice(0)) {
    await relay.kill();
    await waitUntil(() => !processAlive(relay.codexPid));
  }
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function startRelay(options: { transport?: "tcp" | "socket"; heartbeatMs?: number; socketPath?: string; bufferBytes?: number } = {}) {
  if (!token) ({ token, sha256: tokenSha256 } = newRelayToken());
  const relay = await startRelayProcess({ command: [process.execPath, ECHO_CHILD], tokenSha256, ...options });
  relays.push(relay);
  return relay;
}

/** A channel whose lines are collected; `waitForLines(n)` resolves once n have arrived. */
function open(options: Omit<Parameters<typeof openRelayChannel>[0], "onLine" | "token"> & { token?: string }) {
  const lines: RelayLine[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const channel = openRelayChannel({
    token,
    ...options,
    onLine(line) {
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (lines.length < waiter.count) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
  });
  channels.push(channel);
  const waitForLines = (count: number) =>
    new Promise<RelayLine[]>((resolve) => {
      if (lines.length >= count) resolve(lines);
      else waiters.push({ count, resolve: () => resolve(lines) });
    });
  return { channel, lines, waitForLines };
}

/** A TCP proxy in front of the relay: counts connections, can drop them all, freeze them, or cut one reply. */
interface CuttableProxy {
  url: string;
  connections: number;
  dropAll(): void;
  /** Stops passing the relay's bytes on, on every connection open now (they stay open, silent). */
  freeze(): void;
  /** The next reply chunk from the relay that contains `text` is not passed on: its connection is cut instead. */
  cutReplyContaining(text: string): Promise<void>;
  close(): Promise<void>;
}

async function cuttableProxy(targetUrl: string): Promise<CuttableProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const frozen = new Set<Socket>();
  let cut: { text: string; done: () => void } | undefined;
  const server: Server = createServer((client) => {
    state.connections += 1;
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk: Buffer) => {
      if (frozen.has(upstream)) return;
      if (cut && chunk.includes(cut.text)) {
        cut.done();
        cut = undefined;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on("error", () => undefined);
      socket.on("close", () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(socket);
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const state: CuttableProxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: 0,
    dropAll: () => {
      for (const socket of sockets) socket.destroy();
    },
    freeze: () => {
      for (const socket of sockets) frozen.add(socket);
    },
    cutReplyContaining: (text) => new Promise((resolve) => (cut = { text, done: resolve })),
    close: () =>
      new Promise((resolve) => {
        state.dropAll();
        server.close(() => resolve());
      }),
  };
  proxies.push(state);
  return state;
}

const echo = (say: string) => JSON.stringify({ say });
const echoed = (say: string) => `{"echo":{"say":"${say}"}}`;

describe("a relay channel", () => {
  it("delivers codex's lines in order with their seq; a second client attaches from the first's seq and gets what was written while none listened", async () => {
    const relay = await startRelay();
    const first = open({ address: relay.address });
    await first.channel.send(echo("one"));
    await first.channel.send(echo("two"));
    expect(await first.waitForLines(2)).toEqual([
      { seq: 1, line: echoed("one") },
      { seq: 2, line: echoed("two") },
    ]);
    expect(first.channel.epoch()).toBe(relay.epoch);
    const resumeFrom = first.channel.lastSeq();
    first.channel.detach();
    expect(await first.channel.ended).toEqual({ reason: "detached" });

    // Nobody follows while codex writes two more lines (a channel without onLine only sends).
    const sender = openRelayChannel({ address: relay.address, token });
    channels.push(sender);
    await sender.send(echo("three"));
    await sender.send(echo("four"));
    await waitForBuffered(relay, 4);

    const second = open({ address: relay.address, after: resumeFrom, epoch: first.channel.epoch() });
    expect(await second.waitForLines(2)).toEqual([
      { seq: 3, line: echoed("three") },
      { seq: 4, line: echoed("four") },
    ]);
    await second.channel.send(echo("five"));
    expect((await second.waitForLines(3))[2]).toEqual({ seq: 5, line: echoed("five") });
    expect(processAlive(relay.codexPid)).toBe(true);
  });

  it("after a dropped connection it reconnects and resumes from its last seq: every line once, in order", async () => {
    const relay = await startRelay({ transport: "tcp" });
    const proxy = await cuttableProxy((relay.address as { url: string }).url);
    const client = open({ address: { url: proxy.url } });
    await client.channel.send(JSON.stringify({ do: "lines", count: 3 }));
    await client.waitForLines(3);
    proxy.dropAll();
    await client.channel.send(JSON.stringify({ do: "lines", count: 2 }));
    const lines = await client.waitForLines(5);
    expect(lines.map((line) => line.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(lines.map((line) => line.line)).toEqual(['{"n":1}', '{"n":2}', '{"n":3}', '{"n":1}', '{"n":2}']);
    expect(proxy.connections).toBeGreaterThanOrEqual(3);
  });

  it("connections that go silent are given up and reopened: the stream's (no heartbeat) and an input's (no answer)", async () => {
    const relay = await startRelay({ transport: "tcp", heartbeatMs: 50 });
    const proxy = await cuttableProxy((relay.address as { url: string }).url);
    const client = open({ address: { url: proxy.url }, heartbeatTimeoutMs: 300, requestTimeoutMs: 500, reconnectForMs: 60_000 });
    await client.channel.send(echo("before"));
    await client.waitForLines(1);
    const before = proxy.connections;
    proxy.freeze();
    await client.channel.send(echo("after"));
    expect(await client.waitForLines(2)).toEqual([
      { seq: 1, line: echoed("before") },
      { seq: 2, line: echoed("after") },
    ]);
    expect(proxy.connections).toBeGreaterThan(before);
  });

  it("resends an input whose answer was lost, with the same id: codex gets it once", async () => {
    const relay = await startRelay({ transport: "tcp" });
    const proxy = await cuttableProxy((relay.address as { url: string }).url);
    const client = open({ address: { url: proxy.url } });
    const cutDone = proxy.cutReplyContaining('{"written":true}');
    await client.channel.send(echo("once"), "the-one-id");
    await cutDone;
    await client.channel.send(echo("marker"));
    const lines = await client.waitForLines(2);
    expect(lines.map((line) => line.line)).toEqual([echoed("once"), echoed("marker")]);
  });

  it("sends go one at a time, in the order they were made", async () => {
    const relay = await startRelay();
    const client = open({ address: relay.address });
    await Promise.all(["a", "b", "c", "d", "e"].map((say) => client.channel.send(echo(say))));
    expect((await client.waitForLines(5)).map((line) => line.line)).toEqual(["a", "b", "c", "d", "e"].map(echoed));
  });

  it("close ends codex and the relay, and the channel says how", async () => {
    const relay = await startRelay();
    const client = open({ address: relay.address });
    await client.channel.send(echo("hi"));
    await client.waitForLines(1);
    expect(await client.channel.close()).toEqual({ reason: "exited", why: "closed", code: 0, signal: null });
    expect(await relay.exited).toEqual({ code: 0, signal: null });
    await waitUntil(() => !processAlive(relay.codexPid));
    await expect(client.channel.send(echo("after"))).rejects.toThrow(/has ended/);
  });

  it("codex ending on its own ends the channel with its status", async () => {
    const relay = await startRelay();
    const client = open({ address: relay.address });
    await client.channel.send(JSON.stringify({ do: "exit", code: 4 }));
    expect(await client.channel.ended).toEqual({ reason: "exited", why: "exited", code: 4, signal: null });
  });

  it("a wrong token ends the channel at once (refused, 401); a relay that restarted at the address ends it too (relay_restarted)", async () => {
    const relay = await startRelay();
    const wrong = open({ address: relay.address, token: `${token}x` });
    expect(await wrong.channel.ended).toEqual({ reason: "refused", status: 401, error: "unauthorized" });

    const folder = mkdtempSync(join(tmpdir(), "lwc-relay-restart-"));
    folders.push(folder);
    const socketPath = join(folder, "relay.sock");
    const first = await startRelay({ socketPath });
    const client = open({ address: first.address, reconnectForMs: 30_000 });
    await client.channel.send(echo("first life"));
    await client.waitForLines(1);
    // The relay dies (codex with it); another starts on the same socket path.
    first.child.kill("SIGKILL");
    await first.exited;
    rmSync(socketPath, { force: true });
    const restarted = await startRelay({ socketPath });
    expect(restarted.epoch).not.toBe(first.epoch);
    expect(await client.channel.ended).toEqual({ reason: "relay_restarted" });
  });

  it("gives up on a relay that stays gone (unreachable) and fails its sends", async () => {
    const relay = await startRelay();
    const client = open({ address: relay.address, reconnectForMs: 300 });
    await client.channel.send(echo("hi"));
    await client.waitForLines(1);
    relay.child.kill("SIGKILL");
    await relay.exited;
    expect(await client.channel.ended).toMatchObject({ reason: "unreachable" });
    const gone = openRelayChannel({ address: relay.address, token, reconnectForMs: 300, onLine: () => undefined });
    channels.push(gone);
    const failed = await gone.send(echo("nobody")).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(RelayError);
    // On a busy machine its reconnect window may already have run out when the send starts.
    expect(["unreachable", "channel_ended"]).toContain((failed as RelayError).code);
    expect(await gone.ended).toMatchObject({ reason: "unreachable" });
  });

  it("an attach from a seq no longer buffered ends the channel (lines_evicted)", async () => {
    const relay = await startRelay({ bufferBytes: MAX_RELAY_LINE_BYTES });
    const writer = open({ address: relay.address });
    // About 1 KB an event: 2,000 lines are more than the 1 MiB kept.
    await writer.channel.send(JSON.stringify({ do: "lines", count: 2_000, pad: 1_000 }));
    expect((await writer.waitForLines(2_000)).map((line) => line.seq)).toEqual(Array.from({ length: 2_000 }, (_, index) => index + 1));
    const late = open({ address: relay.address, after: 0 });
    const ended = await late.channel.ended;
    expect(ended).toMatchObject({ reason: "lines_evicted" });
    expect((ended as { firstSeq: number }).firstSeq).toBeGreaterThan(1);
    expect(late.lines).toEqual([]);
  });
});

/** Waits until the relay has buffered `count` lines (read without following). */
async function waitForBuffered(relay: RelayProcess, count: number): Promise<void> {
  for (;;) {
    if ((await readRelayLines(relay.address, token, 0)).length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
