/**
 * Sign in with ChatGPT behind a reverse proxy on the same machine. The proxy connects from
 * 127.0.0.1 and rewrites Host to 127.0.0.1:<app port> (nginx's default proxy_pass), so only the
 * forwarding headers it adds tell who the client is. Everything stays on loopback: the proxy is
 * told which client address to announce, as a proxy would for a browser on another machine.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BASE } from "./harness";
import { getWithHeaders, startSiwcHarness, type SiwcHarness } from "./siwc-support";

interface LocalProxy {
  port: number;
  /** The forwarding headers it adds to every request (none: a bare proxy_pass). */
  announce: Record<string, string>;
  close(): Promise<void>;
}

/** A reverse proxy on 127.0.0.1 in front of the app: Host rewritten to the app's, headers added. */
async function startLocalProxy(appPort: number): Promise<LocalProxy> {
  const proxy: LocalProxy = { port: 0, announce: {}, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers, host: `127.0.0.1:${appPort}`, ...proxy.announce };
    const upstream = httpRequest({ host: "127.0.0.1", port: appPort, path: req.url, method: req.method, headers }, (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.port = (server.address() as AddressInfo).port;
  proxy.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return proxy;
}

/** A GET through the proxy, with the cookies given. */
function viaProxy(proxy: LocalProxy, path: string, cookie?: string): Promise<{ status: number; text: string; location?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: proxy.port, path, headers: cookie ? { cookie } : {} }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text, ...(res.headers.location ? { location: res.headers.location } : {}) }));
    });
    req.on("error", reject);
    req.end();
  });
}

let harness: SiwcHarness;
let proxy: LocalProxy;
beforeAll(async () => {
  harness = await startSiwcHarness();
  proxy = await startLocalProxy(harness.served.port);
});
afterAll(async () => {
  await proxy.close();
  await harness.close();
});
afterEach(() => {
  proxy.announce = {};
});

/** What proxies write for a browser on another machine (192.168.1.20 / 2001:db8::20 on the LAN). */
const ANOTHER_MACHINE: Record<string, Record<string, string>> = {
  "nginx $proxy_add_x_forwarded_for": { "x-forwarded-for": "192.168.1.20" },
  "X-Forwarded-For through two hops, the nearest on this machine": { "x-forwarded-for": "192.168.1.20, 127.0.0.1" },
  "X-Real-IP": { "x-real-ip": "192.168.1.20" },
  "Forwarded with a quoted IPv6 and port": { forwarded: 'for="[2001:db8::20]:51234";proto=http' },
  "Forwarded for=unknown": { forwarded: "for=unknown" },
  "Forwarded with an obfuscated node": { forwarded: "for=_lan-client" },
  "Forwarded that cannot be read": { forwarded: "for=[::1]" },
};

describe("SIWC through a reverse proxy on this machine", () => {
  it.each(Object.entries(ANOTHER_MACHINE))("refuses a client on another machine (%s): no start, no button, nothing asked upstream", async (_, announce) => {
    proxy.announce = announce;
    const before = harness.calls.length;
    const start = await viaProxy(proxy, `${BASE}/siwc/start`);
    expect(start.status).toBe(403);
    expect(JSON.parse(start.text)).toMatchObject({ error: "siwc_requires_loopback", message: expect.any(String) });
    expect(start.text).not.toContain("oaiapp_");
    const session = JSON.parse((await viaProxy(proxy, `${BASE}/session`)).text) as Record<string, unknown>;
    expect(session).toMatchObject({ signIn: { methods: ["device", "siwc"], siwc: "needs_loopback" } });
    expect(harness.calls.length).toBe(before);
  });

  it("refuses a callback replayed through the proxy from another machine: nothing is exchanged, and the attempt is still its browser's", async () => {
    const browser = harness.browser();
    const { callbackUrl } = await browser.authorize();
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const exchanges = harness.callsTo("token").length;
    proxy.announce = { "x-forwarded-for": "192.168.1.20" };
    const replayed = await viaProxy(proxy, `${callbackUrl.pathname}${callbackUrl.search}`, cookie);
    expect(replayed.status).toBe(403);
    expect(JSON.parse(replayed.text)).toMatchObject({ error: "siwc_requires_loopback" });
    expect(harness.callsTo("token").length).toBe(exchanges);
    expect((await browser.request("GET", callbackUrl.href)).location).toBe("/");
  });

  it("lets this machine's own browser through the proxy when it says so (X-Forwarded-For, Forwarded, X-Real-IP all loopback)", async () => {
    proxy.announce = { "x-forwarded-for": "127.0.0.1, ::1", forwarded: 'for="[::1]:40000", for=127.0.0.1', "x-real-ip": "::ffff:127.0.0.1" };
    const start = await viaProxy(proxy, `${BASE}/siwc/start`);
    expect(start.status).toBe(302);
    expect(new URL(start.location!).searchParams.get("redirect_uri")).toBe(`http://127.0.0.1:${harness.served.port}/auth/callback`);
  });
});

describe("SIWC with LWC_SIWC_PEER_CHECK=off (a container reached through a published port)", () => {
  it("takes the X-Forwarded-For Next's server writes (the connection's own address) for no proxy, and still refuses a proxy's other client", async () => {
    const bridge = "::ffff:172.17.0.1";
    const container = await startSiwcHarness({ siwc: { peerCheck: false }, handler: { peerAddress: () => bridge } });
    try {
      const port = container.served.port;
      const direct = await getWithHeaders(port, `${BASE}/siwc/start`, { "x-forwarded-for": bridge });
      expect(direct.status).toBe(302);
      const forwarded = await getWithHeaders(port, `${BASE}/siwc/start`, { "x-forwarded-for": "192.168.1.20" });
      expect(forwarded.status).toBe(403);
      expect(JSON.parse(forwarded.text)).toMatchObject({ error: "siwc_requires_loopback" });
    } finally {
      await container.close();
    }
  });
});
