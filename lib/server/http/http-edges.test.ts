import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { connectionPeerAddress } from "./connection-peer";
import { answerHttpEdgesAtTheServer } from "./http-edges";

describe("the HTTP server hook", () => {
  it("runs each request knowing its connection's peer address, through later async steps too", async () => {
    answerHttpEdgesAtTheServer();
    const server = createServer((_request, response) => {
      void (async () => {
        await new Promise((resolve) => setImmediate(resolve));
        response.end(JSON.stringify({ peer: connectionPeerAddress() ?? null }));
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const reply = await fetch(`http://127.0.0.1:${port}/`, { headers: { "x-forwarded-for": "203.0.113.9" } });
      expect(await reply.json()).toEqual({ peer: "127.0.0.1" });
      expect(connectionPeerAddress()).toBeUndefined();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
