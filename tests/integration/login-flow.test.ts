import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sessionKey } from "@/lib/server/session/store";
import { createEvidence, findLeakedTokens, sameLogin, signIn, startHarness, type Harness } from "./harness";

const evidence = createEvidence();
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ evidence, handler: { loginRateLimit: { limit: 1000, windowMs: 60_000 } } });
});
afterAll(() => h.close());
beforeEach(() => h.mock.clearFaults());

const usercodeCalls = () => h.mock.requests({ path: "/api/accounts/deviceauth/usercode" }).length;
const pollCalls = () => h.mock.requests({ path: "/api/accounts/deviceauth/token" }).length;

describe("POST /login", () => {
  it("starts a device login: pending with the device fields and a session cookie", async () => {
    const client = h.client();
    const before = usercodeCalls();
    const reply = await client.post("/login");
    expect(reply.status).toBe(200);
    const state = reply.json();
    expect(state).toEqual({
      status: "pending",
      userCode: expect.stringMatching(/^[A-Z]{4}-\d{4}$/),
      verificationUrl: h.mock.verificationUrl,
      interval: 5,
      expiresAt: expect.any(Number),
      nextCheckInMs: expect.any(Number),
    });
    expect(state.expiresAt as number).toBeGreaterThan(h.clock.now() + 14 * 60_000);
    expect(state.expiresAt as number).toBeLessThanOrEqual(h.clock.now() + 15 * 60_000);
    expect(usercodeCalls()).toBe(before + 1);
    expect(reply.headers.getSetCookie()).toHaveLength(1);
    expect(client.cookie).toBeDefined();
  });

  it("reuses a still-valid pending code without calling upstream, under a new session id", async () => {
    const client = h.client();
    const first = (await client.post("/login")).json();
    const oldCookie = client.cookie;
    const before = usercodeCalls();
    const again = await client.post("/login");
    expect(again.status).toBe(200);
    expect(again.json()).toEqual(sameLogin(first));
    expect(usercodeCalls()).toBe(before);
    expect(again.headers.getSetCookie()).toHaveLength(1);
    expect(client.cookie).not.toBe(oldCookie);
    expect((await client.get("/session")).json()).toMatchObject({ status: "pending", userCode: first.userCode });
  });

  it("makes a session id planted before sign-in worthless: POST /login moves the login to a new id", async () => {
    const attacker = h.client();
    await attacker.post("/login");
    // The victim's browser carries the attacker's cookie and starts signing in with it.
    const victim = h.client();
    victim.cookie = attacker.cookie;
    const started = (await victim.post("/login")).json<{ userCode: string }>();
    expect(victim.cookie).not.toBe(attacker.cookie);
    expect(h.mock.approve(started.userCode)).toBe(true);

    expect((await attacker.get("/status")).json()).toEqual({ status: "unauthenticated" });
    expect((await victim.get("/status")).json()).toMatchObject({ status: "authenticated" });
  });

  it("asks for a new code, under a new session id, once the old one ran out", async () => {
    const client = h.client();
    const first = (await client.post("/login")).json();
    const oldCookie = client.cookie;
    h.clock.advance(15 * 60_000);
    try {
      const again = await client.post("/login");
      expect(again.status).toBe(200);
      expect(again.json().status).toBe("pending");
      expect(again.json().userCode).not.toBe(first.userCode);
      expect(again.headers.getSetCookie()).toHaveLength(1);
      expect(client.cookie).not.toBe(oldCookie);
    } finally {
      h.clock.advance(-15 * 60_000);
    }
  });

  it("answers an already authenticated session with its state and no upstream call", async () => {
    const client = h.client();
    await signIn(h, client);
    const before = usercodeCalls();
    const reply = await client.post("/login");
    expect(reply.json()).toEqual({
      status: "authenticated",
      user: { accountId: "acct_demo", email: "demo@example.com", plan: "plus" },
      capabilities: { voice: true, agentVoice: true, pictures: true, tokenExport: true },
    });
    expect(usercodeCalls()).toBe(before);
  });

  it("maps a disabled device flow (404) to 502 device_code_disabled, without a cookie", async () => {
    h.mock.addFault({ fault: "device_code_disabled" });
    const client = h.client();
    const reply = await client.post("/login");
    expect(reply.status).toBe(502);
    expect(reply.json()).toEqual({ status: "error", error: "device_code_disabled", message: expect.any(String) });
    expect(reply.headers.getSetCookie()).toHaveLength(0);
    expect((await client.get("/session")).json()).toEqual({ status: "unauthenticated" });
  });

  it("maps another upstream refusal to 502 device_code_request_failed", async () => {
    h.mock.addFault({ fault: "device_code_server_error" });
    const reply = await h.client().post("/login");
    expect(reply.status).toBe(502);
    expect(reply.json()).toMatchObject({ status: "error", error: "device_code_request_failed" });
  });
});

describe("GET /status and GET /session", () => {
  it("signs in on approval: authenticated with user, new session id, old cookie dead", async () => {
    const client = h.client();
    const { userCode } = (await client.post("/login")).json<{ userCode: string }>();
    const pendingCookie = client.cookie!;
    h.mock.approve(userCode, { accountId: "acct_rot", email: "rot@example.com", plan: "pro" });
    const reply = await client.get("/status");
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({
      status: "authenticated",
      user: { accountId: "acct_rot", email: "rot@example.com", plan: "pro" },
      capabilities: { voice: true, agentVoice: true, pictures: true, tokenExport: true },
    });
    expect(reply.headers.getSetCookie()).toHaveLength(1);
    expect(client.cookie).toBeDefined();
    expect(client.cookie).not.toBe(pendingCookie);
    expect((await client.get("/session")).json().status).toBe("authenticated");
    // The pre-login cookie (fixation defence) no longer leads anywhere.
    const stale = h.client();
    stale.cookie = pendingCookie;
    expect((await stale.get("/session")).json()).toEqual({ status: "unauthenticated" });
    expect(await h.store.get(sessionKey(pendingCookie.split(".")[0]!))).toBeNull();
  });

  it("GET /session never polls upstream and never changes state", async () => {
    const client = h.client();
    const { userCode } = (await client.post("/login")).json<{ userCode: string }>();
    h.mock.approve(userCode);
    const polls = pollCalls();
    for (let i = 0; i < 3; i += 1) {
      const reply = await client.get("/session");
      expect(reply.json().status).toBe("pending");
      expect(reply.headers.getSetCookie()).toHaveLength(0);
    }
    expect(pollCalls()).toBe(polls);
    expect((await client.get("/status")).json().status).toBe("authenticated");
    expect(pollCalls()).toBe(polls + 1);
  });

  it("polls at most once per interval, and concurrent /status calls poll once", async () => {
    const client = h.client();
    await client.post("/login");
    const polls = pollCalls();
    const concurrent = await Promise.all([client.get("/status"), client.get("/status"), client.get("/status")]);
    concurrent.forEach((reply) => expect(reply.json().status).toBe("pending"));
    expect(pollCalls()).toBe(polls + 1);
    await client.get("/status");
    expect(pollCalls()).toBe(polls + 1);
    h.clock.advance(4_000);
    await client.get("/status");
    expect(pollCalls()).toBe(polls + 1);
    h.clock.advance(1_000);
    await client.get("/status");
    expect(pollCalls()).toBe(polls + 2);
  });

  it("turns a code past its 15 minutes into expired/authorization_expired, kept until a new /login", async () => {
    const client = h.client();
    await client.post("/login");
    h.clock.advance(15 * 60_000);
    try {
      const polls = pollCalls();
      const expired = { status: "expired", error: "authorization_expired", message: expect.any(String) };
      expect((await client.get("/session")).json()).toEqual(expired);
      expect((await client.get("/status")).json()).toEqual(expired);
      expect(pollCalls()).toBe(polls);
      expect((await client.get("/session")).json()).toEqual(expired);
      const again = await client.post("/login");
      expect(again.json().status).toBe("pending");
    } finally {
      h.clock.advance(-15 * 60_000);
    }
  });

  it("reports expired when upstream says the code expired", async () => {
    const client = h.client();
    const { userCode } = (await client.post("/login")).json<{ userCode: string }>();
    h.mock.expire(userCode);
    const reply = await client.get("/status");
    expect(reply.json()).toEqual({ status: "expired", error: "authorization_expired", message: expect.any(String) });
    expect((await client.get("/session")).json().status).toBe("expired");
  });

  it("reports a denial as error/authorization_denied; a new /login starts over", async () => {
    const client = h.client();
    const { userCode } = (await client.post("/login")).json<{ userCode: string }>();
    h.mock.deny(userCode);
    const reply = await client.get("/status");
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({ status: "error", error: "authorization_denied", message: expect.any(String) });
    expect((await client.get("/session")).json().error).toBe("authorization_denied");
    const again = await client.post("/login");
    expect(again.json().status).toBe("pending");
    expect(again.json().userCode).not.toBe(userCode);
  });

  it("answers unauthenticated for no cookie, a tampered cookie and a foreign one", async () => {
    const client = h.client();
    expect((await client.get("/status")).json()).toEqual({ status: "unauthenticated" });
    await client.post("/login");
    const valid = client.cookie!;
    const [id, signature] = valid.split(".");
    const flipped = `${id!.slice(0, -1)}${id!.endsWith("A") ? "B" : "A"}.${signature}`;
    for (const forged of [flipped, `${id}.${signature!.slice(0, -2)}xx`, "garbage", `${id}`]) {
      client.cookie = forged;
      expect((await client.get("/session")).json()).toEqual({ status: "unauthenticated" });
      expect((await client.get("/status")).json()).toEqual({ status: "unauthenticated" });
    }
  });
});

describe("POST /logout", () => {
  it("deletes the session, revokes the refresh token and clears the cookie with Max-Age=0", async () => {
    const client = h.client();
    await signIn(h, client);
    const cookie = client.cookie!;
    const revokes = h.mock.requests({ path: "/oauth/revoke" }).length;
    const reply = await client.post("/logout");
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({ status: "unauthenticated" });
    const [setCookie] = reply.headers.getSetCookie();
    expect(setCookie).toMatch(/^lwc_session=;/);
    expect(setCookie).toContain("Max-Age=0");
    expect(h.mock.requests({ path: "/oauth/revoke" }).length).toBe(revokes + 1);
    expect(await h.store.get(sessionKey(cookie.split(".")[0]!))).toBeNull();
    const replay = h.client();
    replay.cookie = cookie;
    expect((await replay.get("/session")).json()).toEqual({ status: "unauthenticated" });
    expect((await replay.get("/models")).status).toBe(401);
  });

  it("answers unauthenticated without a session too", async () => {
    const reply = await h.client().post("/logout");
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({ status: "unauthenticated" });
  });
});

describe("login rate limit and upstream failures", () => {
  it("limits new device codes per client address (x-forwarded-for) with 429 and retry-after", async () => {
    const limited = await startHarness({ handler: { loginRateLimit: { limit: 2, windowMs: 3_600_000 } }, evidence });
    try {
      // One trusted proxy (the default) appended the address it saw; the entry left of it is the client's own say.
      const from = (ip: string) => ({ "x-forwarded-for": `10.0.0.1, ${ip}` });
      expect((await limited.client().post("/login", undefined, from("203.0.113.7"))).status).toBe(200);
      expect((await limited.client().post("/login", undefined, from("203.0.113.7"))).status).toBe(200);
      const third = await limited.client().post("/login", undefined, from("203.0.113.7"));
      expect(third.status).toBe(429);
      expect(third.json()).toMatchObject({ status: "error", error: "rate_limited", retryAfterSeconds: expect.any(Number) });
      expect(Number(third.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // Another address has its own budget; without x-forwarded-for every request shares the "unknown" one.
      expect((await limited.client().post("/login", undefined, from("198.51.100.1"))).status).toBe(200);
      expect((await limited.client().post("/login", undefined, { "x-real-ip": "192.0.2.9" })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it("does not count reuse of a pending code against the limit", async () => {
    const limited = await startHarness({ handler: { loginRateLimit: { limit: 1, windowMs: 3_600_000 } }, evidence });
    try {
      const client = limited.client();
      expect((await client.post("/login")).status).toBe(200);
      expect((await client.post("/login")).status).toBe(200);
      expect((await limited.client().post("/login")).status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it("maps an unreachable provider to 502 network_error", async () => {
    const dead = await startHarness({ evidence });
    await dead.mock.close();
    try {
      const reply = await dead.client().post("/login");
      expect(reply.status).toBe(502);
      expect(reply.json()).toMatchObject({ status: "error", error: "network_error" });
    } finally {
      await dead.served.close();
    }
  });

  it("keeps pending through a transient poll failure (upstream 5xx or network)", async () => {
    let failPolls = 0;
    const flaky = await startHarness({
      evidence,
      handler: {
        upstream: {
          fetch: async (input, init) => {
            const url = String(input instanceof Request ? input.url : input);
            if (url.endsWith("/deviceauth/token") && failPolls > 0) {
              failPolls -= 1;
              if (failPolls % 2 === 0) throw new TypeError("fetch failed");
              return new Response("upstream hiccup", { status: 503 });
            }
            return fetch(input, init);
          },
        },
      },
    });
    try {
      const client = flaky.client();
      const { userCode } = (await client.post("/login")).json<{ userCode: string }>();
      flaky.mock.approve(userCode);
      failPolls = 2;
      expect((await client.get("/status")).json().status).toBe("pending");
      flaky.clock.advance(5_000);
      expect((await client.get("/status")).json().status).toBe("pending");
      expect(failPolls).toBe(0);
      flaky.clock.advance(5_000);
      expect((await client.get("/status")).json().status).toBe("authenticated");
      expect(evidence.logs.some((line) => line.message.includes("device authorization poll failed"))).toBe(true);
    } finally {
      await flaky.close();
    }
  });

  it("puts a failed code exchange into error/token_exchange_failed", async () => {
    const broken = await startHarness({
      evidence,
      handler: {
        upstream: {
          fetch: async (input, init) => {
            const url = String(input instanceof Request ? input.url : input);
            if (url.endsWith("/oauth/token")) return new Response('{"error":"server_error"}', { status: 500 });
            return fetch(input, init);
          },
        },
      },
    });
    try {
      const client = broken.client();
      const { userCode } = (await client.post("/login")).json<{ userCode: string }>();
      broken.mock.approve(userCode);
      const reply = await client.get("/status");
      expect(reply.json()).toEqual({ status: "error", error: "token_exchange_failed", message: expect.any(String) });
      expect((await client.get("/session")).json().status).toBe("error");
    } finally {
      await broken.close();
    }
  });
});

it("never leaks a token into a response body or a log line", () => {
  expect(evidence.issuedTokens.size).toBeGreaterThan(0);
  expect(evidence.bodies.length).toBeGreaterThan(10);
  expect(findLeakedTokens(evidence)).toEqual([]);
});
