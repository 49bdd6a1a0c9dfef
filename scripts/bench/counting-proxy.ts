import { createServer, request as httpRequest } from "node:http";

/**
 * An HTTP pass-through that counts requests: put in front of the Upstash REST
 * bridge, it counts the app's store round trips.
 */
export async function startCountingProxy(target: string): Promise<{ url: string; count(): number; close(): Promise<void> }> {
  const targetUrl = new URL(target);
  let count = 0;
  const server = createServer((req, res) => {
    count += 1;
    const upstream = httpRequest(
      { host: targetUrl.hostname, port: targetUrl.port, path: req.url, method: req.method, headers: req.headers },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    upstream.on("error", () => {
      res.writeHead(502).end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
