import "server-only";
/**
 * The forwarding proxy a sandboxed codex process reaches the network through: an HTTP proxy the
 * server runs (one per process, on a unix socket bound into the sandbox), which forwards only to
 * the hosts on its allow-list and refuses everything else with a 403 and a log line.
 *
 * It speaks what codex sends through HTTPS_PROXY / HTTP_PROXY (docs/agent-voice.md#its-own-network):
 * - `CONNECT host:port` (HTTPS, and every WebSocket, ws:// too): a tunnel, bytes both ways;
 * - an absolute-form request (`POST http://127.0.0.1:4010/backend-api/codex/responses`): forwarded
 *   as an origin-form request, the reply streamed back as it arrives;
 * - an absolute-form upgrade (`GET ws://…` or `http://…` with `Upgrade:`): the request passed on,
 *   then bytes both ways.
 * Nothing else: no other scheme, no origin-form request, no user info in a URL.
 *
 * A log line names the method and `host:port` only, never a path, header or body.
 */
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { formatTarget, isAllowed, parseAbsoluteUrl, parseAuthority, type EgressTarget } from "./egress-allow-list";

/** Connections one codex process may hold through its proxy at once (it uses a handful). */
const MAX_CONNECTIONS = 64;
/** Longer than codex's own pool keeps an idle connection, so the proxy is never the side that drops one in use. */
const KEEP_ALIVE_MS = 120_000;
/** Headers that describe one hop (RFC 9110 §7.6.1), not the request: never forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);
const METHOD = /^[A-Z]{1,16}$/;

interface EgressProxyOptions {
  /** The only `host:port`s it connects to. */
  allow: readonly EgressTarget[];
  /** Each refused request, as `METHOD host:port` (or a fixed phrase for a malformed one). */
  onRefused?(request: string): void;
  /** Each forwarded request, as `METHOD host:port`. */
  onForwarded?(request: string): void;
}

export interface EgressProxy {
  /** Not yet listening: the caller listens where it wants (a unix socket, or 127.0.0.1 in a test). */
  server: Server;
  /** Stops listening and ends every connection, tunnels included. */
  close(): Promise<void>;
}

/** The headers to pass on: without hop-by-hop ones and without those `Connection` names. */
function endToEndHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = new Set(
    String(headers.connection ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ""),
  );
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    kept[name] = value;
  }
  return kept;
}

/** The request line and headers of an upgrade, passed on as the client sent them (minus the proxy's own). */
function upgradeHead(request: IncomingMessage, path: string): string {
  const lines = [`${request.method} ${path} HTTP/1.1`];
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]!;
    if (name.toLowerCase().startsWith("proxy-")) continue;
    lines.push(`${name}: ${request.rawHeaders[i + 1]}`);
  }
  return `${lines.join("\r\n")}\r\n\r\n`;
}

function refuseRaw(socket: Duplex, status: string): void {
  socket.on("error", () => undefined);
  socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
}

/** Bytes both ways until either side ends; an error on one side ends the other. */
function splice(a: Duplex, b: Duplex): void {
  a.pipe(b);
  b.pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.once("error", end);
  b.once("error", end);
  a.once("close", end);
  b.once("close", end);
}

export function createEgressProxy(options: EgressProxyOptions): EgressProxy {
  const sockets = new Set<Duplex>();
  const agent = new Agent({ keepAlive: true });
  const track = <T extends Duplex>(socket: T): T => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    return socket;
  };

  /** The target if allowed; otherwise logs the refusal and returns undefined. */
  function permit(method: string | undefined, target: EgressTarget | undefined, upgrade = false): EgressTarget | undefined {
    const verb = `${method && METHOD.test(method) ? method : "request"}${upgrade ? " (upgrade)" : ""}`;
    if (!target) {
      options.onRefused?.(`${verb} to a malformed or unsupported target`);
      return undefined;
    }
    if (!isAllowed(options.allow, target)) {
      options.onRefused?.(`${verb} ${formatTarget(target)}`);
      return undefined;
    }
    options.onForwarded?.(`${verb} ${formatTarget(target)}`);
    return target;
  }

  /** Opens a TCP connection to `target`; `ready` runs once it is up, `failed` if it never is. */
  function dial(target: EgressTarget, ready: (upstream: Socket) => void, failed: () => void): void {
    const upstream = track(connect({ host: target.host, port: target.port }));
    let connected = false;
    upstream.once("connect", () => {
      connected = true;
      ready(upstream);
    });
    upstream.once("error", () => {
      if (!connected) failed();
    });
  }

  // No request timer: a live session (and its streamed replies) may last an hour.
  const server = createServer({ keepAliveTimeout: KEEP_ALIVE_MS, requestTimeout: 0 }, (request, response) => {
    const target = permit(request.method, request.url ? parseAbsoluteUrl(request.url) : undefined);
    if (!target) {
      response.writeHead(403, { "content-length": "0", connection: "close" }).end();
      return;
    }
    const url = new URL(request.url!);
    const upstream = httpRequest(
      { host: target.host, port: target.port, method: request.method, path: `${url.pathname}${url.search}`, headers: endToEndHeaders(request.headers), agent },
      (reply) => {
        response.writeHead(reply.statusCode ?? 502, reply.statusMessage, endToEndHeaders(reply.headers));
        reply.pipe(response);
        reply.once("error", () => response.destroy());
      },
    );
    upstream.once("error", () => {
      if (!response.headersSent) response.writeHead(502, { "content-length": "0" }).end();
      else response.destroy();
    });
    // The client went away before the reply ended: stop the upstream request too.
    response.once("close", () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  });

  server.on("connection", (socket: Socket) => track(socket));
  server.maxConnections = MAX_CONNECTIONS;

  server.on("connect", (request: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const target = permit("CONNECT", request.url ? parseAuthority(request.url) : undefined);
    if (!target) return refuseRaw(client, "403 Forbidden");
    client.on("error", () => undefined);
    dial(
      target,
      (upstream) => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length > 0) upstream.write(head);
        splice(client, upstream);
      },
      () => refuseRaw(client, "502 Bad Gateway"),
    );
  });

  server.on("upgrade", (request: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const target = permit(request.method, request.url ? parseAbsoluteUrl(request.url) : undefined, true);
    if (!target) return refuseRaw(client, "403 Forbidden");
    client.on("error", () => undefined);
    const url = new URL(request.url!);
    dial(
      target,
      (upstream) => {
        upstream.write(upgradeHead(request, `${url.pathname}${url.search}`));
        if (head.length > 0) upstream.write(head);
        splice(client, upstream);
      },
      () => refuseRaw(client, "502 Bad Gateway"),
    );
  });

  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        agent.destroy();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
}
