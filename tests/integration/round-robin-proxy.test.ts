import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRoundRobinProxy, type RoundRobinProxy } from "@/test-support/round-robin-proxy";

/** An upstream that answers with its name, the Host it was sent and X-Forwarded-For, after echoing the body. */
function upstream(name: string): Promise<Server> {
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ name, host: request.headers.host, forwardedFor: request.headers["x-forwarded-for"], body }));
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

describe("the round-robin proxy of the two-instance e2e run", () => {
  let a: Server;
  let b: Server;
  let proxy: RoundRobinProxy;
  beforeAll(async () => {
    [a, b] = await Promise.all([upstream("a"), upstream("b")]);
    const url = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    proxy = await startRoundRobinProxy([url(a), url(b)]);
  });
  afterAll(async () => {
    await proxy.close();
    for (const server of [a, b]) await new Promise((resolve) => server.close(resolve));
  });

  it("sends each request to the next instance in turn, body and Host kept, the client's address forwarded", async () => {
    const names: string[] = [];
    for (let i = 0; i < 4; i++) {
      const reply = await fetch(`${proxy.url}/api/x`, { method: "POST", body: `hello ${i}` });
      const seen = (await reply.json()) as { name: string; host: string; forwardedFor: string; body: string };
      expect(seen.body).toBe(`hello ${i}`);
      expect(seen.host).toBe(`127.0.0.1:${proxy.port}`);
      expect(seen.forwardedFor).toBe("127.0.0.1");
      names.push(seen.name);
    }
    expect(names).toEqual(["a", "b", "a", "b"]);
    expect(proxy.counts()).toEqual([2, 2]);
  });
});

describe("the round-robin proxy with failover", () => {
  it("skips an upstream that refuses connections (restarting), with the request's body", async () => {
    const live = await upstream("live");
    const closed = await upstream("closed");
    const url = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const closedUrl = url(closed);
    await new Promise((resolve) => closed.close(resolve));
    const proxy = await startRoundRobinProxy([closedUrl, url(live)], 0, { failover: true });
    try {
      for (let i = 0; i < 3; i += 1) {
        const answer = await fetch(`${proxy.url}/x`, { method: "POST", body: `body ${i}` });
        expect(answer.status).toBe(200);
        expect(await answer.json()).toMatchObject({ name: "live", body: `body ${i}` });
      }
    } finally {
      await proxy.close();
      await new Promise((resolve) => live.close(resolve));
    }
    // Without failover the same request answers 502 (the proxy's own answer).
    const plain = await startRoundRobinProxy([closedUrl]);
    try {
      expect((await fetch(`${plain.url}/x`)).status).toBe(502);
    } finally {
      await plain.close();
    }
  });
});
