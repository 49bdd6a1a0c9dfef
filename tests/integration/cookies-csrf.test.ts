import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStore } from "@/lib/stores/memory-store";
import { createProviderHandler } from "@/lib/server/handler";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { serveHandler } from "@/test-support/serve-handler";
import {
  createClock,
  createEvidence,
  findLeakedTokens,
  handlerOptionsFor,
  signIn,
  startHarness,
  TEST_SECRET,
  type Harness,
} from "./harness";

const evidence = createEvidence();
let mock: MockUpstream;
let h: Harness;

beforeAll(async () => {
  mock = await startMockUpstream();
  h = await startHarness({ evidence, sharedMock: mock, handler: { allowedOrigins: ["https://app.example.com"] } });
});
afterAll(async () => {
  await h.close();
  await mock.close();
});

function attributes(setCookie: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of setCookie.split(";").slice(1)) {
    const [name, ...value] = part.trim().split("=");
    map.set(name!.toLowerCase(), value.join("="));
  }
  return map;
}

describe("the session cookie", () => {
  it("is HttpOnly, SameSite=Lax, Path=/, Max-Age from sessionTtlMs, not Secure over plain HTTP", async () => {
    const reply = await h.client().post("/login");
    const [cookie] = reply.headers.getSetCookie();
    expect(cookie).toMatch(/^lwc_session=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43};/);
    const attrs = attributes(cookie!);
    expect(attrs.has("httponly")).toBe(true);
    expect(attrs.get("samesite")).toBe("Lax");
    expect(attrs.get("path")).toBe("/");
    expect(attrs.get("max-age")).toBe(String(7 * 24 * 3600));
    expect(attrs.has("secure")).toBe(false);
    expect(attrs.has("domain")).toBe(false);
  });

  it("is Secure when the request came over HTTPS (X-Forwarded-Proto)", async () => {
    const reply = await h.client().post("/login", undefined, { "x-forwarded-proto": "https" });
    expect(attributes(reply.headers.getSetCookie()[0]!).has("secure")).toBe(true);
  });

  it("takes Max-Age from sessionTtlMs and every attribute from the cookie option", async () => {
    const custom = await startHarness({
      evidence,
      sharedMock: mock,
      handler: {
        sessionTtlMs: 3_600_000,
        cookie: { name: "my_sess", sameSite: "strict", path: "/api", domain: "example.test", httpOnly: false },
      },
    });
    const forced = await startHarness({
      evidence,
      sharedMock: mock,
      handler: { cookie: { secure: true, maxAgeSeconds: 120 } },
    });
    const neverSecure = await startHarness({ evidence, sharedMock: mock, handler: { cookie: { secure: false } } });
    try {
      const customCookie = (await custom.client().post("/login")).headers.getSetCookie()[0]!;
      expect(customCookie.startsWith("my_sess=")).toBe(true);
      const attrs = attributes(customCookie);
      expect(attrs.get("max-age")).toBe("3600");
      expect(attrs.get("samesite")).toBe("Strict");
      expect(attrs.get("path")).toBe("/api");
      expect(attrs.get("domain")).toBe("example.test");
      expect(attrs.has("httponly")).toBe(false);

      const forcedAttrs = attributes((await forced.client().post("/login")).headers.getSetCookie()[0]!);
      expect(forcedAttrs.has("secure")).toBe(true);
      expect(forcedAttrs.get("max-age")).toBe("120");

      const https = { "x-forwarded-proto": "https" };
      const plainAttrs = attributes((await neverSecure.client().post("/login", undefined, https)).headers.getSetCookie()[0]!);
      expect(plainAttrs.has("secure")).toBe(false);
    } finally {
      await Promise.all([custom.close(), forced.close(), neverSecure.close()]);
    }
  });

  it("keeps working across a secret rotation (new first, old still verifies and unseals)", async () => {
    const clock = createClock();
    const store = createMemoryStore({ now: clock.now });
    const oldSecret = "old-secret-for-rotation-tests-0123456789";
    const before = createProviderHandler(handlerOptionsFor(mock, evidence, clock, { sessionStore: store, secrets: [oldSecret] }));
    const after = createProviderHandler(
      handlerOptionsFor(mock, evidence, clock, { sessionStore: store, secrets: [TEST_SECRET, oldSecret] }),
    );
    const dropped = createProviderHandler(handlerOptionsFor(mock, evidence, clock, { sessionStore: store, secrets: [TEST_SECRET] }));
    const [servedBefore, servedAfter, servedDropped] = await Promise.all([
      serveHandler(before.handler),
      serveHandler(after.handler),
      serveHandler(dropped.handler),
    ]);
    try {
      const login = await fetch(`${servedBefore.url}/api/provider/login`, { method: "POST" });
      const cookie = login.headers.getSetCookie()[0]!.split(";")[0]!;
      const headers = { cookie };
      const read = async (url: string) =>
        (await (await fetch(`${url}/api/provider/session`, { headers })).json()) as { status: string };
      expect((await read(servedAfter.url)).status).toBe("pending");
      expect((await read(servedDropped.url)).status).toBe("unauthenticated");
    } finally {
      await Promise.all([servedBefore.close(), servedAfter.close(), servedDropped.close()]);
    }
  });

  it("refuses secrets shorter than 32 characters at start-up, naming the position only", () => {
    expect(() => createProviderHandler({ secrets: [TEST_SECRET, "short-secret"] })).toThrow(
      /secret #2 is 12 characters long.*at least 32/,
    );
    expect(() => createProviderHandler({ secrets: ["x".repeat(31)] })).toThrow(/at least 32/);
    const refuse = () => createProviderHandler({ secrets: ["too-short-and-secret"] });
    expect(refuse).toThrow(/secret #1 is 20 characters long.*at least 32/);
    let thrown: unknown;
    try {
      refuse();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(String(thrown)).not.toContain("too-short-and-secret");
    expect((thrown as Error).stack ?? "").not.toContain("too-short-and-secret");
  });

  it("without secrets warns once per process and uses an ephemeral secret", async () => {
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (m: string) => warnings.push(m), error: () => undefined };
    const first = createProviderHandler({ logger, upstream: { issuer: mock.issuer } });
    const second = createProviderHandler({ logger, upstream: { issuer: mock.issuer } });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("LWC_SECRET is not set");
    // Each instance has its own random secret: one's cookie means nothing to the other.
    const [a, b] = await Promise.all([serveHandler(first.handler), serveHandler(second.handler)]);
    try {
      const login = await fetch(`${a.url}/api/provider/login`, { method: "POST" });
      const cookie = login.headers.getSetCookie()[0]!.split(";")[0]!;
      const headers = { cookie };
      const onA = await (await fetch(`${a.url}/api/provider/session`, { headers })).json();
      const onB = await (await fetch(`${b.url}/api/provider/session`, { headers })).json();
      expect(onA).toMatchObject({ status: "pending" });
      expect(onB).toEqual({ status: "unauthenticated" });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe("CSRF (Origin check on every non-GET route)", () => {
  it("passes the same origin reached as 127.0.0.1 and as localhost", async () => {
    for (const host of ["127.0.0.1", "localhost"] as const) {
      const client = h.client({ host });
      const reply = await client.post("/login", undefined, { origin: client.origin });
      expect(reply.status).toBe(200);
      expect(reply.headers.get("access-control-allow-origin")).toBeNull();
      expect((await client.post("/logout", undefined, { origin: client.origin })).status).toBe(200);
    }
  });

  it("passes the same origin behind a proxy (X-Forwarded-Host / X-Forwarded-Proto)", async () => {
    const reply = await h.client().post("/login", undefined, {
      origin: "https://public.example.org",
      "x-forwarded-host": "public.example.org",
      "x-forwarded-proto": "https",
    });
    expect(reply.status).toBe(200);
  });

  it("passes a request without Origin", async () => {
    expect((await h.client().post("/login")).status).toBe(200);
  });

  it("passes an allowed origin and answers it with credentialed CORS headers", async () => {
    const client = h.client();
    const reply = await client.post("/login", undefined, { origin: "https://app.example.com" });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(reply.headers.get("access-control-allow-credentials")).toBe("true");
    expect(reply.headers.get("vary")).toMatch(/Origin/);
    const session = await client.get("/session", { origin: "https://app.example.com" });
    expect(session.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
  });

  it.each([
    ["a foreign origin", "https://evil.example.net"],
    ["the opaque origin null", "null"],
    ["an allowed origin with another port", "https://app.example.com:8443"],
    ["the same host over another scheme", "https://127.0.0.1"],
  ])("rejects %s with 403 origin_not_allowed", async (_label, origin) => {
    const client = h.client();
    for (const path of ["/login", "/logout", "/responses"]) {
      const reply = await client.post(path, undefined, { origin });
      expect(reply.status).toBe(403);
      expect(reply.json()).toEqual({ error: "origin_not_allowed", origin });
      expect(reply.headers.get("cache-control")).toBe("no-store");
      expect(reply.headers.getSetCookie()).toHaveLength(0);
    }
  });

  it("does not check Origin on GET routes", async () => {
    const reply = await h.client().get("/session", { origin: "https://evil.example.net" });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("answers a preflight from an allowed origin, and refuses a foreign one", async () => {
    const client = h.client();
    const allowed = await client.request("OPTIONS", "/responses", {
      headers: {
        origin: "https://app.example.com",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, x-login-with-provider-service-tier",
      },
    });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(allowed.headers.get("access-control-allow-credentials")).toBe("true");
    expect(allowed.headers.get("access-control-allow-methods")).toContain("POST");
    expect(allowed.headers.get("access-control-allow-headers")).toContain("x-login-with-provider-service-tier");
    const foreign = await client.request("OPTIONS", "/responses", { headers: { origin: "https://evil.example.net" } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("routing", () => {
  it("answers an unknown path with a plain-text 404", async () => {
    for (const path of ["/nope", "/login/", "/realtime/", "/realtime/app-server/abc/events", ""]) {
      const reply = await h.client().get(path);
      expect(reply.status, path).toBe(404);
      expect(reply.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(reply.headers.get("cache-control")).toBe("no-store");
    }
    const outside = await fetch(`${h.served.url}/elsewhere/login`, { method: "POST" });
    expect(outside.status).toBe(404);
  });

  it.each([
    ["GET", "/login", "POST, OPTIONS"],
    ["DELETE", "/logout", "POST, OPTIONS"],
    ["POST", "/status", "GET, OPTIONS"],
    ["PUT", "/session", "GET, OPTIONS"],
    ["PATCH", "/models", "GET, OPTIONS"],
    ["GET", "/responses", "POST, OPTIONS"],
    ["HEAD", "/session", "GET, OPTIONS"],
  ])("answers %s %s with a plain-text 405 and Allow: %s", async (method, path, allow) => {
    const reply = await h.client().request(method, path);
    expect(reply.status).toBe(405);
    expect(reply.headers.get("allow")).toBe(allow);
    expect(reply.headers.get("cache-control")).toBe("no-store");
    if (method !== "HEAD") expect(reply.headers.get("content-type")).toMatch(/^text\/plain/);
  });

  it("serves under a custom basePath", async () => {
    const clock = createClock();
    const provider = createProviderHandler(handlerOptionsFor(mock, evidence, clock, { basePath: "/auth/" }));
    expect(provider.basePath).toBe("/auth");
    const served = await serveHandler(provider.handler);
    try {
      expect((await fetch(`${served.url}/auth/session`)).status).toBe(200);
      expect((await fetch(`${served.url}/api/provider/session`)).status).toBe(404);
    } finally {
      await served.close();
    }
  });

  it("puts cache-control: no-store on every reply", async () => {
    const client = h.client();
    await signIn(h, client);
    const replies = await Promise.all([client.get("/session"), client.get("/status"), client.get("/models"), client.post("/login")]);
    for (const reply of replies) expect(reply.headers.get("cache-control")).toBe("no-store");
  });
});

it("never leaks a token into a response body or a log line", () => {
  expect(evidence.issuedTokens.size).toBeGreaterThan(0);
  expect(findLeakedTokens(evidence)).toEqual([]);
});
