/**
 * What only the production server shows: methods the Fetch API cannot represent, malformed
 * percent-escapes in the path, and an oversized upload to the example route (memory measured on the
 * server process itself).
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { startNextServer, type NextServer } from "@/test-support/next-server";
import { TEST_SECRET } from "./cluster";
import { SessionClient } from "./session-client";

let mock: MockUpstream;
let server: NextServer;

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  server = await startNextServer({ LWC_ISSUER_URL: mock.issuer, LWC_CODEX_BASE_URL: mock.codexBaseUrl, LWC_SECRET: TEST_SECRET });
});
afterAll(async () => {
  await server?.stop();
  await mock?.close();
});

/** Peak resident memory of the server process so far, in bytes (Linux /proc). */
function peakRss(): number {
  const status = readFileSync(`/proc/${server.pid()}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

describe("framework edges", () => {
  it.each(["TRACE", "PROPFIND"])("answers %s with a plain 405 and no stack trace in the log", async (method) => {
    const before = server.output().length;
    for (const path of ["/api/provider/session", "/api/health"]) {
      // fetch() refuses to send TRACE itself, so the request is written by hand.
      const reply = await rawRequest(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      expect(reply).toMatch(/^HTTP\/1\.1 405 /);
    }
    expect(server.output().slice(before)).not.toMatch(/TypeError|Error:|at /);
  });

  it.each(["/api/provider/%ff", "/api/provider/session%ff", "/api/provider/a/%ff%fe"])("answers GET %s with a plain 404", async (path) => {
    const before = server.output().length;
    const reply = await fetch(`${server.url}${path}`);
    expect(reply.status).toBe(404);
    expect(await reply.text()).toBe("Not Found");
    expect(server.output().slice(before)).not.toMatch(/Error/);
  });
});

describe("routes of the build", () => {
  it("has no benchmark route: the floor's path (scripts/bench/floor-app) is a 404 in the product, and forwards nothing", async () => {
    const forwarded = () => mock.requests({ path: "/backend-api/codex/responses" }).length;
    const before = forwarded();
    for (const method of ["POST", "GET"]) {
      const reply = await fetch(`${server.url}/api/bench-floor`, { method, ...(method === "POST" ? { body: "{}" } : {}) });
      expect(reply.status, method).toBe(404);
      await reply.arrayBuffer();
    }
    expect(forwarded()).toBe(before);
  });

  it("serves /api/provider/responses (its own static route) with the handler: its 405 with Allow, no-store and a request id", async () => {
    const reply = await fetch(`${server.url}/api/provider/responses`);
    expect(reply.status).toBe(405);
    expect(reply.headers.get("allow")).toBe("POST, OPTIONS");
    expect(reply.headers.get("cache-control")).toBe("no-store");
    expect(reply.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await reply.text()).toBe("Method Not Allowed");
  });
});

describe("POST /api/example/haiku body limit", () => {
  it("answers 413 to a 96 MB chunked upload from a signed-in user, with the server's peak memory flat", async () => {
    const user = new SessionClient();
    await user.signIn(server.url, mock, { accountId: "acct_haiku_upload", email: "upload@example.com" });
    const total = 96 * 1024 * 1024;
    const chunk = new Uint8Array(1024 * 1024).fill(0x61);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"topic":"'));
      },
      pull(controller) {
        if (sent >= total) return controller.close();
        controller.enqueue(chunk.slice());
        sent += chunk.byteLength;
      },
    });
    const peakBefore = peakRss();
    const reply = await fetch(`${server.url}/api/example/haiku`, {
      method: "POST",
      headers: { cookie: `lwc_session=${user.cookie}`, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(reply.status).toBe(413);
    expect(await reply.json()).toEqual({ error: "request_too_large", maxRequestBytes: 16 * 1024 });
    expect(peakRss() - peakBefore).toBeLessThan(32 * 1024 * 1024);
  });
});

describe("POST /api/example/haiku while /responses is rate-limited", () => {
  it("answers the 429 without calling upstream /models again (the list comes from the per-account cache)", async () => {
    const user = new SessionClient();
    await user.signIn(server.url, mock, { accountId: "acct_haiku_limited", email: "limited@example.com" });
    const cookie = `lwc_session=${user.cookie}`;
    const body = JSON.stringify({ model: "gpt-5.5", input: "hi" });
    // The default limit is 30 per minute and session: use it up.
    for (let i = 0; i < 30; i += 1) {
      const reply = await fetch(`${server.url}/api/provider/responses`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body });
      await reply.text();
    }
    const modelCalls = () => mock.requests({ path: "/backend-api/codex/models" }).length;
    const before = modelCalls();
    for (let i = 0; i < 5; i += 1) {
      const reply = await fetch(`${server.url}/api/example/haiku`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: "{}" });
      expect(reply.status).toBe(429);
      expect(await reply.json()).toMatchObject({ error: "rate_limited" });
    }
    expect(modelCalls()).toBe(before);
  });
});

async function rawRequest(text: string): Promise<string> {
  const { connect } = await import("node:net");
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1", () => socket.end(text));
    let reply = "";
    socket.on("data", (data) => (reply += data.toString()));
    socket.on("end", () => resolve(reply));
    socket.on("error", reject);
  });
}
