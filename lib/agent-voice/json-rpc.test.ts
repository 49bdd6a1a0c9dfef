import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createRpcConnection, RpcError, type RpcHandlers } from "./json-rpc";
import { readLines } from "./sandbox/line-reader";

/** A connection whose "server" side the test plays: `fromServer` is what the client reads, `sent` what it wrote. */
function harness(handlers: Partial<RpcHandlers> = {}, maxLineBytes = 1024 * 1024) {
  const fromServer = new PassThrough();
  const toServer = new PassThrough();
  const sent: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let buffered = "";
  toServer.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      sent.push(JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>);
      buffered = buffered.slice(newline + 1);
      waiters.splice(0).forEach((wake) => wake());
    }
  });
  const notifications: [string, unknown][] = [];
  let tooLong = 0;
  // The channel a local sandbox gives: lines read from a stream with the cap, lines written to one.
  let listener: (line: string) => void = () => undefined;
  readLines(fromServer, maxLineBytes, (line) => listener(line), () => void (tooLong += 1));
  const channel = { send: (line: string) => void toServer.write(`${line}\n`), onLine: (next: (line: string) => void) => (listener = next) };
  const rpc = createRpcConnection(channel, {
    onNotification: (method, params) => notifications.push([method, params]),
    onRequest: async () => undefined,
    ...handlers,
  });
  const nextSent = async (count: number) => {
    while (sent.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    return sent[count - 1]!;
  };
  const write = (message: unknown) => fromServer.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
  return { rpc, sent, nextSent, write, notifications, fromServer, tooLong: () => tooLong };
}

describe("JSON-RPC over a newline-delimited channel", () => {
  it("sends requests without a jsonrpc field and resolves them by id; error answers reject with their code", async () => {
    const { rpc, nextSent, write } = harness();
    const first = rpc.request("thread/start", { ephemeral: true }, 1_000);
    const second = rpc.request("thread/realtime/start", {}, 1_000);
    const a = await nextSent(1);
    const b = await nextSent(2);
    expect(a).toEqual({ method: "thread/start", id: expect.any(Number), params: { ephemeral: true } });
    expect("jsonrpc" in a).toBe(false);
    write({ id: b.id, error: { code: -32600, message: "thread not found" } });
    write({ id: a.id, result: { thread: { id: "t1" } } });
    await expect(first).resolves.toEqual({ thread: { id: "t1" } });
    await expect(second).rejects.toMatchObject({ name: "RpcError", code: -32600, message: "thread not found" });
  });

  it("ignores lines that are not JSON and passes notifications on", async () => {
    const { rpc, nextSent, write, notifications } = harness();
    const pending = rpc.request("initialize", {}, 1_000);
    const sent = await nextSent(1);
    write("WARNING: not protocol");
    write({ method: "thread/realtime/sdp", params: { sdp: "v=0" }, emittedAtMs: 1 });
    write({ id: sent.id, result: {} });
    await expect(pending).resolves.toEqual({});
    expect(notifications).toEqual([["thread/realtime/sdp", { sdp: "v=0" }]]);
  });

  it("answers server requests with the handler's result, its RpcError, or a generic error that reveals nothing", async () => {
    const { nextSent, write } = harness({
      onRequest: async (method) => {
        if (method === "item/tool/call") return { contentItems: [], success: true };
        if (method === "unknown/method") throw new RpcError(-32601, "unknown/method is not supported by this client");
        throw new Error("secret internal detail");
      },
    });
    write({ id: 0, method: "item/tool/call", params: {} });
    write({ id: 1, method: "unknown/method", params: {} });
    write({ id: 2, method: "attestation/generate", params: {} });
    const answers = [await nextSent(1), await nextSent(2), await nextSent(3)];
    expect(answers).toContainEqual({ id: 0, result: { contentItems: [], success: true } });
    expect(answers).toContainEqual({ id: 1, error: { code: -32601, message: "unknown/method is not supported by this client" } });
    expect(answers).toContainEqual({ id: 2, error: { code: -32603, message: "The client could not handle this request." } });
  });

  it("times a request out, and close() fails every open request", async () => {
    const { rpc } = harness();
    await expect(rpc.request("initialize", {}, 20)).rejects.toMatchObject({ message: "initialize timed out" });
    const open = rpc.request("thread/start", {}, 5_000);
    rpc.close("the app-server process exited");
    await expect(open).rejects.toMatchObject({ message: "the app-server process exited" });
    await expect(rpc.request("thread/start", {}, 5_000)).rejects.toMatchObject({ message: "connection closed" });
  });

  it("caps one line from the server: a line of exactly the limit is read; a longer one is never held whole and stops reading", async () => {
    const limit = 64 * 1024;
    const { rpc, nextSent, write, notifications, fromServer, tooLong } = harness({}, limit);
    const message = (text: string) => JSON.stringify({ method: "note", params: { text } });
    const atLimit = message("a".repeat(limit - message("").length));
    expect(Buffer.byteLength(atLimit)).toBe(limit);
    write(atLimit);
    // Multi-byte characters split across chunks are counted in bytes and decoded whole.
    const accented = message("é".repeat(100));
    const bytes = Buffer.from(`${accented}\n`);
    fromServer.write(bytes.subarray(0, 20));
    fromServer.write(bytes.subarray(20));
    const pending = rpc.request("initialize", {}, 1_000);
    const sent = await nextSent(1);
    write({ id: sent.id, result: {} });
    await expect(pending).resolves.toEqual({});
    expect(notifications.map(([, params]) => (params as { text: string }).text.length)).toEqual([limit - message("").length, 100]);
    expect(notifications[1]![1]).toEqual({ text: "é".repeat(100) });

    // One byte over, sent in pieces and without its newline yet: the limit is crossed while it arrives.
    const over = message("b".repeat(limit + 1 - message("").length));
    for (let offset = 0; offset < over.length; offset += 10_000) fromServer.write(over.slice(offset, offset + 10_000));
    await new Promise((resolve) => setImmediate(resolve));
    expect(tooLong()).toBe(1);
    write({ method: "after", params: {} });
    fromServer.write("\n");
    await new Promise((resolve) => setImmediate(resolve));
    expect(tooLong()).toBe(1);
    expect(notifications).toHaveLength(2);
  });
});
