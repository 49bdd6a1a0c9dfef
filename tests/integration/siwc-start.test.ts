import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE, findLeakedTokens, startHarness } from "./harness";
import { getWithHeaders, startSiwcHarness, type SiwcHarness } from "./siwc-support";

const SIX_SCOPES = "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct";

describe("GET /siwc/start refuses where SIWC cannot run", () => {
  it("answers 403 siwc_disabled when LWC_SIGN_IN lacks siwc", async () => {
    const harness = await startHarness();
    try {
      const reply = await fetch(harness.url("/siwc/start"), { redirect: "manual" });
      expect(reply.status).toBe(403);
      expect(await reply.json()).toMatchObject({ error: "siwc_disabled", message: expect.any(String) });
      // And the callback is no route at all then.
      expect((await fetch(`${harness.served.url}/auth/callback?state=x&code=y`)).status).toBe(404);
    } finally {
      await harness.close();
    }
  });

  it("answers 403 siwc_requires_loopback on a hosting platform (VERCEL=1 sets hosted)", async () => {
    const harness = await startSiwcHarness({ siwc: { hosted: true } });
    try {
      const reply = await harness.browser().start();
      expect(reply.status).toBe(403);
      expect(reply.json()).toMatchObject({ error: "siwc_requires_loopback" });
      expect(harness.calls).toEqual([]);
      expect(await harness.browser().session()).toMatchObject({ signIn: { methods: ["device", "siwc"], siwc: "needs_loopback" } });
    } finally {
      await harness.close();
    }
  });
});

describe("GET /siwc/start", () => {
  let harness: SiwcHarness;
  beforeAll(async () => {
    harness = await startSiwcHarness();
  });
  afterAll(async () => {
    expect(findLeakedTokens(harness.evidence)).toEqual([]);
    await harness.close();
  });

  it("refuses a page that is not on a loopback origin (Host or X-Forwarded-Host), before any upstream call", async () => {
    const before = harness.calls.length;
    const port = harness.served.port;
    const variants: Record<string, string>[] = [{ host: "chat.example.com" }, { "x-forwarded-host": "chat.example.com" }, { "x-forwarded-proto": "https" }];
    for (const headers of variants) {
      const reply = await getWithHeaders(port, `${BASE}/siwc/start`, headers);
      expect(reply.status).toBe(403);
      expect(JSON.parse(reply.text)).toMatchObject({ error: "siwc_requires_loopback", message: expect.any(String) });
    }
    expect(harness.calls.length).toBe(before);
    const session = await getWithHeaders(port, `${BASE}/session`, { host: "chat.example.com" });
    expect(JSON.parse(session.text)).toEqual({ status: "unauthenticated", signIn: { methods: ["device", "siwc"], siwc: "needs_loopback" } });
  });

  it("sends a page on localhost to the same URL on 127.0.0.1 first", async () => {
    const reply = await harness.browser("localhost").start("?consent=1");
    expect(reply.status).toBe(302);
    expect(reply.location).toBe(`http://127.0.0.1:${harness.served.port}${BASE}/siwc/start?consent=1`);
    expect(await harness.browser("localhost").session()).toEqual({ status: "unauthenticated", signIn: { methods: ["device", "siwc"], siwc: "available" } });
  });

  it("302s to the discovery document's authorize endpoint with every parameter of a first registration", async () => {
    const browser = harness.browser();
    const reply = await browser.start();
    expect(reply.status).toBe(302);
    const url = new URL(reply.location!);
    expect(`${url.origin}${url.pathname}`).toBe(`${harness.mock.siwcIssuer}/api/accounts/authorize`);
    const q = url.searchParams;
    expect(q.get("response_type")).toBe("code");
    expect(q.get("client_id")).toBe("dynamic_agent_client");
    expect(q.get("agent_name_hint")).toBe("Sign in with ChatGPT (Next.js reference app)");
    expect(q.get("redirect_uri")).toBe(`http://127.0.0.1:${harness.served.port}/auth/callback`);
    expect(q.get("scope")).toBe(SIX_SCOPES);
    expect(q.get("resource")).toBe("https://api.openai.com/v1");
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("state")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("nonce")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("ext_agent_host_id")).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(q.has("login_hint")).toBe(false);
    expect(q.has("prompt")).toBe(false);
    // The verifier and nonce stay on the server: nothing but the binding cookie reaches the browser.
    expect([...browser.cookies.keys()]).toEqual(["lwc_siwc_browser"]);
    expect(reply.headers.get("set-cookie")).toMatch(/HttpOnly; SameSite=Lax/);
  });

  it("makes a fresh state, nonce and challenge per attempt and keeps one host id", async () => {
    const first = new URL((await harness.browser().start()).location!).searchParams;
    const second = new URL((await harness.browser().start("?consent=1")).location!).searchParams;
    for (const name of ["state", "nonce", "code_challenge"]) expect(first.get(name)).not.toBe(second.get(name));
    expect(first.get("ext_agent_host_id")).toBe(second.get("ext_agent_host_id"));
    expect(second.get("prompt")).toBe("consent");
    // Kept in the store before the first sign-in.
    expect(await harness.store.get("lwc:siwc:host-id")).toBe(first.get("ext_agent_host_id"));
  });

  it("reads the discovery document once (cached)", async () => {
    await harness.browser().start();
    expect(harness.callsTo("discovery").length).toBe(1);
  });
});

describe("GET /siwc/start with LWC_SIWC_HOST_ID and without discovery", () => {
  it("sends the configured host id", async () => {
    const hostId = "urn:uuid:0b5d6f8e-2a4c-4d9e-8f1a-3b6c7d8e9f0a";
    const harness = await startSiwcHarness({ siwc: { hostId } });
    try {
      expect(new URL((await harness.browser().start()).location!).searchParams.get("ext_agent_host_id")).toBe(hostId);
      expect(await harness.store.get("lwc:siwc:host-id")).toBeNull();
    } finally {
      await harness.close();
    }
  });

  it("sends the browser back to the page with identity_verification_unavailable when discovery fails, and tries again next time", async () => {
    const harness = await startSiwcHarness();
    try {
      harness.mock.siwc.arm({ switch: "discovery_server_error" });
      const failed = await harness.browser().start();
      expect(failed.status).toBe(303);
      expect(failed.location).toBe("/?signin_error=identity_verification_unavailable");
      expect((await harness.browser().start()).status).toBe(302);
    } finally {
      await harness.close();
    }
  });

  it("refuses a discovery document whose issuer is not the configured one", async () => {
    const other = await startSiwcHarness();
    const harness = await startSiwcHarness({ siwc: { issuer: other.mock.siwcIssuer.replace("127.0.0.1", "localhost") } });
    try {
      const reply = await harness.browser().start();
      expect(reply.location).toBe("/?signin_error=identity_verification_unavailable");
    } finally {
      await harness.close();
      await other.close();
    }
  });
});

describe("SIWC needs the connection itself to come from this machine", () => {
  it("refuses a start and a callback from a non-loopback peer even when Host says 127.0.0.1 (a LAN client)", async () => {
    let peer = "127.0.0.1";
    const harness = await startSiwcHarness({ handler: { peerAddress: () => peer } });
    try {
      const browser = harness.browser();
      const { callbackUrl } = await browser.authorize();
      peer = "192.168.1.20";
      const start = await harness.browser().start();
      expect(start.status).toBe(403);
      expect(start.json()).toMatchObject({ error: "siwc_requires_loopback" });
      const callback = await browser.request("GET", callbackUrl.href);
      expect(callback.status).toBe(403);
      expect(callback.json()).toMatchObject({ error: "siwc_requires_loopback" });
      expect(harness.callsTo("token")).toEqual([]);
      expect(await harness.browser().session()).toMatchObject({ signIn: { siwc: "needs_loopback" } });
      // The same browser back on this machine finishes its attempt.
      peer = "::ffff:127.0.0.1";
      expect((await browser.request("GET", callbackUrl.href)).location).toBe("/");
    } finally {
      await harness.close();
    }
  });

  it("accepts any peer with the check turned off (a container reached through a published port)", async () => {
    const harness = await startSiwcHarness({ siwc: { peerCheck: false }, handler: { peerAddress: () => "172.17.0.1" } });
    try {
      expect((await harness.browser().start()).status).toBe(302);
    } finally {
      await harness.close();
    }
  });
});

describe("GET /siwc/start is a page navigation, and limited", () => {
  it("refuses a subresource load (an <img> on any page: Sec-Fetch-Mode no-cors) and a cross-site fetch, storing nothing", async () => {
    const harness = await startSiwcHarness();
    try {
      const port = harness.served.port;
      const refused: Record<string, string>[] = [{ "sec-fetch-mode": "no-cors", "sec-fetch-dest": "image" }, { origin: "https://evil.example", "sec-fetch-mode": "cors" }];
      for (const headers of refused) {
        const reply = await getWithHeaders(port, `${BASE}/siwc/start`, headers);
        expect(reply.status).toBe(403);
        expect(JSON.parse(reply.text)).toMatchObject({ error: "siwc_navigation_required", message: expect.any(String) });
      }
      expect(harness.calls).toEqual([]);
      expect((await getWithHeaders(port, `${BASE}/siwc/start`, { "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" })).status).toBe(302);
    } finally {
      await harness.close();
    }
  });

  it("counts starts against the login limit per client address (429 rate_limited with Retry-After)", async () => {
    const harness = await startSiwcHarness({ handler: { loginRateLimit: { limit: 2, windowMs: 60_000 } } });
    try {
      harness.clock.alignToWindowStart(60_000);
      expect((await harness.browser().start()).status).toBe(302);
      expect((await harness.browser().start()).status).toBe(302);
      const limited = await harness.browser().start();
      expect(limited.status).toBe(429);
      expect(limited.json()).toMatchObject({ error: "rate_limited", retryAfterSeconds: expect.any(Number) });
      expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
      // Device-code logins keep their own count.
      expect((await harness.client().post("/login")).status).toBe(200);
    } finally {
      await harness.close();
    }
  });
});
