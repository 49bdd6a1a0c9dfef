/**
 * Test support: an HTTP proxy that forwards nothing. Point HTTP(S)_PROXY at it (with
 * NO_PROXY=127.0.0.1,localhost): every attempt to reach another host lands here, is recorded
 * (`CONNECT chatgpt.com:443`, `GET http://…`) and refused, and the test fails on any entry.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ProxySink {
  url: string;
  attempts: string[];
  env: Record<string, string>;
  /** Resolves with the first attempt (existing or future). */
  nextAttempt(): Promise<string>;
  close(): Promise<void>;
}

export async function startProxySink(): Promise<ProxySink> {
  const attempts: string[] = [];
  let wake: ((attempt: string) => void) | undefined;
  const record = (attempt: string) => {
    attempts.push(attempt);
    wake?.(attempt);
  };
  const server: Server = createServer((request, response) => {
    record(`${request.method} ${request.url}`);
    response.writeHead(403).end();
  });
  server.on("connect", (request, socket) => {
    record(`CONNECT ${request.url}`);
    socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const noProxy = "127.0.0.1,localhost";
  return {
    url,
    attempts,
    nextAttempt: () => (attempts.length > 0 ? Promise.resolve(attempts[0]!) : new Promise((resolve) => (wake = resolve))),
    env: { HTTPS_PROXY: url, HTTP_PROXY: url, ALL_PROXY: url, https_proxy: url, http_proxy: url, all_proxy: url, NO_PROXY: noProxy, no_proxy: noProxy },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
