/**
 * The egress proxy for real: it listens on a unix socket (as in the sandbox), real HTTP, TCP and
 * WebSocket servers on 127.0.0.1 stand for the upstream and for a loopback service it must not
 * reach, and raw sockets play codex (so every byte the proxy gets is the test's own).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WebSocket, WebSocketServer } from "ws";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseAllowEntry } from "./egress-allow-list";
import { createEgressProxy, type EgressProxy } from "./egress-proxy";

let scratch: string;
let socketPath: string;
let upstream: Server;
let upstreamPort: number;
let upstreamRequests: IncomingMessage[];
/** Released by a test to let the upstream finish a streamed reply. */
let releaseStream: (() => void) | undefined;
let sockets: WebSocketServer;
let service: TcpServer;
let servicePort: number;
let serviceConnections: number;
let proxy: EgressProxy;
let refused: string[];
let forwarded: string[];

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "lwc-egress-test-"));
  socketPath = join(scratch, "proxy.sock");
  upstreamRequests = [];
  upstream = createServer((request, response) => {
    upstreamRequests.push(request);
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      if (request.url === "/stream") {
        response.writeHead(200, { "content-type": "text/event-stream", connection: "keep-alive, x-hop", "x-hop": "1" });
        response.write("data: first\n\n");
        new Promise<void>((resolve) => (releaseStream = resolve)).then(() => response.end("data: last\n\n"));
        return;
      }
      response.writeHead(201, { "content-type": "application/json", "x-upstream": "yes" });
      response.end(JSON.stringify({ method: request.method, url: request.url, body, headers: request.headers }));
    });
  });
  sockets = new WebSocketServer({ noServer: true });
  upstream.on("upgrade", (request, socket, head) => {
    upstreamRequests.push(request);
    sockets.handleUpgrade(request, socket, head, (ws) => ws.on("message", (data) => ws.send(`echo:${data.toString()}`)));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;
  serviceConnections = 0;
  service = createTcpServer((socket) => {
    serviceConnections += 1;
    socket.end("+PONG\r\n");
  });
  await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
  servicePort = (service.address() as AddressInfo).port;
});

afterAll(async () => {
  sockets.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
  await new Promise((resolve) => service.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

async function startProxy(): Promise<void> {
  refused = [];
  forwarded = [];
  proxy = createEgressProxy({
    allow: [parseAllowEntry(`http://127.0.0.1:${upstreamPort}`)],
    onRefused: (request) => refused.push(request),
    onForwarded: (request) => forwarded.push(request),
  });
  await new Promise<void>((resolve) => proxy.server.listen(socketPath, resolve));
}

afterEach(async () => {
  await proxy?.close();
  upstreamRequests.length = 0;
});

/** Sends `head` on a new connection to the proxy; resolves with the socket and the reply's status line once the reply's head arrived. */
function raw(head: string): Promise<{ socket: Socket; status: string; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onData);
      resolve({ socket, status: received.subarray(0, received.indexOf("\r\n")).toString(), rest: received.subarray(end + 4) });
    };
    socket.on("data", onData);
    socket.once("error", reject);
    socket.write(head);
  });
}

/** Reads from `socket` until `text` has arrived. */
function readUntil(socket: Socket, text: string, already = Buffer.alloc(0)): Promise<string> {
  return new Promise((resolve) => {
    let received = already.toString();
    if (received.includes(text)) return resolve(received);
    const onData = (chunk: Buffer) => {
      received += chunk.toString();
      if (!received.includes(text)) return;
      socket.off("data", onData);
      resolve(received);
    };
    socket.on("data", onData);
  });
}

/** An absolute-form request through the proxy, as codex sends plain http:// calls. */
function viaProxy(method: string, url: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingMessage["headers"]; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ socketPath, agent: false, method, path: url, headers: { host: new URL(url).host, ...headers } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, text }));
    });
    request.once("error", reject);
    request.end(body);
  });
}

describe("CONNECT (HTTPS and WebSockets)", () => {
  it("tunnels bytes both ways to an allowed host:port", async () => {
    await startProxy();
    const { socket, status } = await raw(`CONNECT 127.0.0.1:${upstreamPort} HTTP/1.1\r\nHost: 127.0.0.1:${upstreamPort}\r\n\r\n`);
    expect(status).toBe("HTTP/1.1 200 Connection Established");
    socket.write(`GET /through-the-tunnel HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(await readUntil(socket, "}")).toContain('"url":"/through-the-tunnel"');
    socket.destroy();
    expect(forwarded).toEqual([`CONNECT 127.0.0.1:${upstreamPort}`]);
    expect(refused).toEqual([]);
  });

  it("refuses a host:port not on the list with 403, logs it, and never connects there", async () => {
    await startProxy();
    const { socket, status } = await raw(`CONNECT 127.0.0.1:${servicePort} HTTP/1.1\r\nHost: 127.0.0.1:${servicePort}\r\n\r\n`);
    expect(status).toBe("HTTP/1.1 403 Forbidden");
    socket.destroy();
    const other = await raw("CONNECT chatgpt.com:443 HTTP/1.1\r\nHost: chatgpt.com:443\r\n\r\n");
    expect(other.status).toBe("HTTP/1.1 403 Forbidden");
    other.socket.destroy();
    expect(refused).toEqual([`CONNECT 127.0.0.1:${servicePort}`, "CONNECT chatgpt.com:443"]);
    expect(serviceConnections).toBe(0);
  });

  it("refuses a malformed target without naming it", async () => {
    await startProxy();
    for (const target of ["127.0.0.1", `user@127.0.0.1:${upstreamPort}`, `127.0.0.1:${upstreamPort}/x`]) {
      const { socket, status } = await raw(`CONNECT ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      expect(status, target).toBe("HTTP/1.1 403 Forbidden");
      socket.destroy();
    }
    expect(refused).toEqual(Array(3).fill("CONNECT to a malformed or unsupported target"));
  });

  it("answers 502 when an allowed host does not answer", async () => {
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    refused = [];
    proxy = createEgressProxy({ allow: [parseAllowEntry(`127.0.0.1:${port}`)] });
    await new Promise<void>((resolve) => proxy.server.listen(socketPath, resolve));
    const { socket, status } = await raw(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`);
    expect(status).toBe("HTTP/1.1 502 Bad Gateway");
    socket.destroy();
  });

  it("carries a WebSocket (ws://) through a tunnel, as codex opens the realtime sideband", async () => {
    await startProxy();
    const { socket, status } = await raw(`CONNECT 127.0.0.1:${upstreamPort} HTTP/1.1\r\n\r\n`);
    expect(status).toBe("HTTP/1.1 200 Connection Established");
    const ws = new WebSocket(`ws://127.0.0.1:${upstreamPort}/v1/realtime`, { createConnection: () => socket });
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    const reply = new Promise<string>((resolve) => ws.once("message", (data) => resolve(data.toString())));
    ws.send("hello");
    expect(await reply).toBe("echo:hello");
    ws.close();
  });
});

describe("absolute-form requests (plain http://)", () => {
  it("forwards method, path, query, body and end-to-end headers; drops the proxy's and hop-by-hop ones", async () => {
    await startProxy();
    const reply = await viaProxy("POST", `http://127.0.0.1:${upstreamPort}/backend-api/codex/responses?x=1`, '{"input":"hi"}', {
      "content-type": "application/json",
      authorization: "Bearer for-the-upstream",
      "proxy-authorization": "Basic for-the-proxy",
      connection: "keep-alive, x-drop-me",
      "x-drop-me": "1",
    });
    expect(reply.status).toBe(201);
    expect(reply.headers["x-upstream"]).toBe("yes");
    const seen = JSON.parse(reply.text) as { method: string; url: string; body: string; headers: Record<string, string> };
    expect(seen).toMatchObject({ method: "POST", url: "/backend-api/codex/responses?x=1", body: '{"input":"hi"}' });
    expect(seen.headers).toMatchObject({ host: `127.0.0.1:${upstreamPort}`, authorization: "Bearer for-the-upstream", "content-type": "application/json" });
    expect(seen.headers).not.toHaveProperty("proxy-authorization");
    expect(seen.headers).not.toHaveProperty("x-drop-me");
    expect(forwarded).toEqual([`POST 127.0.0.1:${upstreamPort}`]);
  });

  it("streams the reply as it arrives (an SSE body), and drops the reply's hop-by-hop headers", async () => {
    await startProxy();
    const first = await new Promise<{ chunk: string; headers: IncomingMessage["headers"]; rest: Promise<string> }>((resolve, reject) => {
      const request = httpRequest({ socketPath, agent: false, method: "GET", path: `http://127.0.0.1:${upstreamPort}/stream` }, (response) => {
        response.setEncoding("utf8");
        let rest = "";
        const ended = new Promise<string>((done) => response.on("end", () => done(rest)));
        response.once("data", (chunk: string) => {
          response.on("data", (more: string) => (rest += more));
          resolve({ chunk, headers: response.headers, rest: ended });
        });
      });
      request.once("error", reject);
      request.end();
    });
    // The first event arrived while the upstream still holds the reply open.
    expect(first.chunk).toBe("data: first\n\n");
    expect(first.headers).not.toHaveProperty("x-hop");
    releaseStream!();
    expect(await first.rest).toBe("data: last\n\n");
  });

  it("refuses a host not on the list, an origin-form path and an https:// URL with 403, and logs each without its path", async () => {
    await startProxy();
    expect((await viaProxy("GET", `http://127.0.0.1:${servicePort}/secret-path?token=abc`)).status).toBe(403);
    expect((await viaProxy("GET", "http://169.254.169.254/latest/meta-data/")).status).toBe(403);
    const originForm = await raw("GET /backend-api/codex/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    expect(originForm.status).toBe("HTTP/1.1 403 Forbidden");
    originForm.socket.destroy();
    expect((await viaProxy("GET", `https://127.0.0.1:${upstreamPort}/`)).status).toBe(403);
    expect(refused).toEqual([
      `GET 127.0.0.1:${servicePort}`,
      "GET 169.254.169.254:80",
      "GET to a malformed or unsupported target",
      "GET to a malformed or unsupported target",
    ]);
    expect(refused.join("\n")).not.toMatch(/secret-path|token|meta-data/);
    expect(serviceConnections).toBe(0);
    expect(upstreamRequests).toEqual([]);
  });
});

describe("absolute-form upgrades", () => {
  it("passes an allowed upgrade on (without the proxy's headers) and then bytes both ways", async () => {
    await startProxy();
    const ws = new WebSocket(`ws://127.0.0.1:${upstreamPort}/v1/realtime?call_id=1`, {
      createConnection: () => {
        const socket = connect(socketPath);
        // ws writes an origin-form request line; make it absolute-form, as a proxy client would.
        const write = socket.write.bind(socket);
        socket.write = ((chunk: string | Buffer, ...rest: never[]) =>
          write(typeof chunk === "string" ? chunk.replace(/^GET \//, `GET ws://127.0.0.1:${upstreamPort}/`).replace("\r\n", "\r\nProxy-Authorization: Basic x\r\n") : chunk, ...rest)) as typeof socket.write;
        return socket;
      },
    });
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    const reply = new Promise<string>((resolve) => ws.once("message", (data) => resolve(data.toString())));
    ws.send("over the upgrade");
    expect(await reply).toBe("echo:over the upgrade");
    ws.close();
    expect(upstreamRequests.at(-1)!.url).toBe("/v1/realtime?call_id=1");
    expect(upstreamRequests.at(-1)!.headers).not.toHaveProperty("proxy-authorization");
    expect(forwarded).toEqual([`GET (upgrade) 127.0.0.1:${upstreamPort}`]);
  });

  it("refuses an upgrade to a host not on the list", async () => {
    await startProxy();
    const { socket, status } = await raw(`GET ws://127.0.0.1:${servicePort}/ HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`);
    expect(status).toBe("HTTP/1.1 403 Forbidden");
    socket.destroy();
    expect(refused).toEqual([`GET (upgrade) 127.0.0.1:${servicePort}`]);
    expect(serviceConnections).toBe(0);
  });
});

it("close() ends the tunnels still open", async () => {
  await startProxy();
  const { socket, status } = await raw(`CONNECT 127.0.0.1:${upstreamPort} HTTP/1.1\r\n\r\n`);
  expect(status).toBe("HTTP/1.1 200 Connection Established");
  const closed = new Promise((resolve) => socket.once("close", resolve));
  await proxy.close();
  await closed;
  expect(socket.destroyed).toBe(true);
});
