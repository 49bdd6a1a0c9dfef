import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface RoundRobinProxy {
  url: string;
  port: number;
  /** Requests sent to each upstream so far, in the order the upstreams were given. */
  counts(): number[];
  close(): Promise<void>;
}

/**
 * A small load balancer for tests: each request goes to the next upstream in turn (round robin),
 * streamed both ways, with the Host header kept (so the app judges Origin as the browser's page)
 * and the client's address appended to X-Forwarded-For as a proxy does. Listens on 127.0.0.1.
 */
export async function startRoundRobinProxy(
  upstreams: readonly string[],
  port = 0,
  /** `failover`: an upstream that refuses the connection (restarting) is skipped, as a load balancer's health check would. */
  options: { failover?: boolean } = {},
): Promise<RoundRobinProxy> {
  if (upstreams.length === 0) throw new Error("a round-robin proxy needs at least one upstream");
  const counts = upstreams.map(() => 0);
  let next = 0;

  const send = (
    incoming: IncomingMessage,
    index: number,
    body: Buffer | undefined,
    respond: (status: number, headers: IncomingMessage["headers"], body: NodeJS.ReadableStream) => void,
    fail: (error: NodeJS.ErrnoException) => void,
  ) => {
    counts[index]! += 1;
    const target = new URL(incoming.url ?? "/", upstreams[index]);
    const forwardedFor = [incoming.headers["x-forwarded-for"], incoming.socket.remoteAddress].filter(Boolean).join(", ");
    const outgoing = httpRequest(target, { method: incoming.method, headers: { ...incoming.headers, "x-forwarded-for": forwardedFor } }, (answer) => {
      respond(answer.statusCode ?? 502, answer.headers, answer);
    });
    outgoing.on("error", fail);
    if (body === undefined) incoming.pipe(outgoing);
    else outgoing.end(body);
  };

  const forward = (incoming: IncomingMessage, respond: (status: number, headers: IncomingMessage["headers"], body: NodeJS.ReadableStream) => void, fail: () => void) => {
    const first = next;
    next = (next + 1) % upstreams.length;
    if (!options.failover) return send(incoming, first, undefined, respond, fail);
    // The body is read first, so the request can go to the next upstream when one refuses it.
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks);
      const attempt = (tried: number) =>
        send(incoming, (first + tried) % upstreams.length, body, respond, (error) => {
          if (error.code === "ECONNREFUSED" && tried + 1 < upstreams.length) attempt(tried + 1);
          else fail();
        });
      attempt(0);
    });
  };

  const server: Server = createServer((incoming, response) => {
    forward(
      incoming,
      (status, headers, body) => {
        response.writeHead(status, headers);
        body.pipe(response);
      },
      () => {
        if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" });
        response.end("bad gateway");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    counts: () => [...counts],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
