/**
 * Sign-in attacks from the adversarial review: the /login reuse race, spoofed client addresses,
 * planted cookies and duplicate cookies. Each test reproduces the attack, bounded and on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCookieSigner } from "@/lib/server/http/cookies";
import { randomId } from "@/lib/server/http/encoding";
import { createMemoryStore } from "@/lib/stores/memory-store";
import type { KeyValueStore } from "@/lib/stores/types";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { BASE, createEvidence, findLeakedTokens, startHarness, TEST_SECRET, type Harness } from "./harness";

const evidence = createEvidence();
let mock: MockUpstream;

beforeAll(async () => {
  mock = await startMockUpstream();
});
afterAll(async () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
  await mock.close();
});

const pollCalls = () => mock.requests({ path: "/api/accounts/deviceauth/token" }).length;
const usercodeCalls = () => mock.requests({ path: "/api/accounts/deviceauth/usercode" }).length;

async function withHarness(options: Parameters<typeof startHarness>[0], run: (h: Harness) => Promise<void>) {
  const h = await startHarness({ evidence, sharedMock: mock, ...options });
  try {
    await run(h);
  } finally {
    await h.close();
  }
}

describe("POST /login reuse race", () => {
  it("40 concurrent reuses of one pending cookie leave one live record and one upstream poll", async () => {
    // One new code per client: a request that finds the record already moved asks for a new code and is refused.
    await withHarness({ handler: { loginRateLimit: { limit: 1, windowMs: 3_600_000 } } }, async (h) => {
      const client = h.client({ page: true });
      await client.post("/login");
      const headers = { cookie: `lwc_session=${client.cookie}`, "x-lwc-login-nonce": client.loginNonce! };
      const codesBefore = usercodeCalls();
      const replies = await Promise.all(
        Array.from({ length: 40 }, () => fetch(h.url("/login"), { method: "POST", headers })),
      );
      // Refused (429) by the per-login reuse limiter or, once the record moved, by the login limit;
      // of the rest only the one request that claimed the old record moved it.
      expect(replies.every((reply) => reply.status === 200 || reply.status === 429)).toBe(true);
      const moved = replies.filter((reply) => reply.headers.getSetCookie().length > 0);
      expect(moved).toHaveLength(1);
      expect(usercodeCalls()).toBe(codesBefore);

      // Every id any reply handed out, plus the old one: only one still holds the login.
      const sessions = [
        headers,
        ...moved.map((reply) => ({
          cookie: reply.headers.getSetCookie()[0]!.split(";")[0]!,
          "x-lwc-login-nonce": reply.headers.get("x-lwc-login-nonce")!,
        })),
      ];
      const states = await Promise.all(
        sessions.map(async (sent) => ((await (await fetch(h.url("/session"), { headers: sent })).json()) as { status: string }).status),
      );
      expect(states.filter((status) => status === "pending")).toHaveLength(1);

      const pollsBefore = pollCalls();
      await Promise.all(sessions.flatMap((sent) => Array.from({ length: 5 }, () => fetch(h.url("/status"), { headers: sent }))));
      expect(pollCalls() - pollsBefore).toBe(1);
      await Promise.all(replies.map((reply) => reply.text()));
    });
  });

  it("counts reuse in its own per-login limiter", async () => {
    await withHarness({ handler: { loginRateLimit: { limit: 1000, windowMs: 3_600_000 } } }, async (h) => {
      const client = h.client();
      await client.post("/login");
      const statuses: number[] = [];
      for (let i = 0; i < 25; i += 1) statuses.push((await client.post("/login")).status);
      expect(statuses.slice(0, 20)).toEqual(Array(20).fill(200));
      expect(statuses.slice(20)).toEqual(Array(5).fill(429));
    });
  });
});

describe("client addresses for the login limits", () => {
  const limits = {
    loginRateLimit: { limit: 3, windowMs: 3_600_000 },
    loginGlobalRateLimit: { limit: 10, windowMs: 3_600_000 },
  };

  it("spoofed X-Forwarded-For entries cannot use up sign-in for a second client (one trusted proxy)", async () => {
    await withHarness({ handler: limits }, async (h) => {
      // The attacker writes any X-Forwarded-For it likes; the trusted proxy appends the address it saw.
      for (let i = 0; i < 30; i += 1) {
        const spoofed = `${i % 250}.${(i * 7) % 250}.1.1`;
        await h.client().post("/login", undefined, { "x-forwarded-for": `${spoofed}, 203.0.113.50` });
      }
      const victim = await h.client().post("/login", undefined, { "x-forwarded-for": "198.51.100.20" });
      expect(victim.status).toBe(200);
    });
  });

  it("many addresses of one network share a bucket, so they cannot hold the global backstop", async () => {
    await withHarness({ handler: limits }, async (h) => {
      const statuses: number[] = [];
      for (let i = 1; i <= 30; i += 1) {
        statuses.push((await h.client().post("/login", undefined, { "x-forwarded-for": `203.0.113.${i}` })).status);
      }
      expect(statuses.filter((status) => status === 200)).toHaveLength(3);
      expect((await h.client().post("/login", undefined, { "x-forwarded-for": "198.51.100.20" })).status).toBe(200);
    });
  });

  it("answers the exhausted global backstop with its own code, not 'from this address'", async () => {
    await withHarness({ handler: limits }, async (h) => {
      for (let i = 1; i <= 10; i += 1) {
        expect((await h.client().post("/login", undefined, { "x-forwarded-for": `10.${i}.0.1` })).status).toBe(200);
      }
      const refused = await h.client().post("/login", undefined, { "x-forwarded-for": "10.99.0.1" });
      expect(refused.status).toBe(429);
      expect(refused.json()).toMatchObject({ status: "error", error: "login_busy" });
      expect(refused.json<{ message: string }>().message).not.toMatch(/address/);
    });
  });
});

describe("planted cookies", () => {
  it("a planted pending cookie shows no code, polls nothing, and the victim's approval never reaches the planter", async () => {
    await withHarness({}, async (h) => {
      // Both behave like our page (they opt in to the login nonce); a planted login started with the
      // cookie alone is tests/integration/contract-login.test.ts's case.
      const planter = h.client({ page: true });
      const planted = (await planter.post("/login")).json<{ userCode: string }>();
      const victim = h.client({ page: true });
      victim.cookie = planter.cookie; // set for the app's host by a sibling subdomain or a plain-HTTP page

      const polls = pollCalls();
      expect((await victim.get("/session")).json()).toEqual({ status: "unauthenticated" });
      expect((await victim.get("/status")).json()).toEqual({ status: "unauthenticated" });
      expect(pollCalls()).toBe(polls);

      // The victim's page starts its own login: a new code, not the planter's.
      const own = (await victim.post("/login")).json<{ userCode: string }>();
      expect(own.userCode).not.toBe(planted.userCode);
      expect(h.mock.approve(own.userCode)).toBe(true);
      expect((await planter.get("/status")).json()).toEqual({ status: "unauthenticated" });
      expect((await victim.get("/status")).json()).toMatchObject({ status: "authenticated" });
    });
  });

  it("names the cookie lwc_session over HTTPS too by default (the contract's name), Secure", async () => {
    await withHarness({}, async (h) => {
      const login = await fetch(h.url("/login"), { method: "POST", headers: { "x-forwarded-proto": "https" } });
      const setCookie = login.headers.getSetCookie()[0]!;
      expect(setCookie).toMatch(/^lwc_session=[^;]+; Path=\/; .*; Secure; SameSite=Lax$/);
      const cookie = setCookie.split(";")[0]!;
      const read = await fetch(h.url("/session"), { headers: { "x-forwarded-proto": "https", cookie } });
      expect(((await read.json()) as { status: string }).status).toBe("pending");
      await login.text();
    });
  });

  it("with cookie.hostPrefix names it __Host-lwc_session when it is Secure, and reads only that name then", async () => {
    await withHarness({ handler: { cookie: { hostPrefix: true } } }, async (h) => {
      const https = { "x-forwarded-proto": "https" };
      const login = await fetch(h.url("/login"), { method: "POST", headers: https });
      const setCookie = login.headers.getSetCookie()[0]!;
      expect(setCookie).toMatch(/^__Host-lwc_session=/);
      expect(setCookie).toMatch(/; Path=\/;/);
      expect(setCookie).toMatch(/; Secure/);
      expect(setCookie).not.toMatch(/Domain=/i);
      const value = setCookie.split(";")[0]!.split("=")[1]!;
      const read = async (cookie: string) =>
        ((await (await fetch(h.url("/session"), { headers: { ...https, cookie } })).json()) as { status: string }).status;
      expect(await read(`__Host-lwc_session=${value}`)).toBe("pending");
      // The same value under the plain name (which a sibling subdomain could set) counts for nothing over HTTPS.
      expect(await read(`lwc_session=${value}`)).toBe("unauthenticated");
    });
  });

  it("keeps the plain name when a domain is configured (the documented way back)", async () => {
    await withHarness({ handler: { cookie: { domain: "127.0.0.1" } } }, async (h) => {
      const login = await fetch(h.url("/login"), { method: "POST", headers: { "x-forwarded-proto": "https" } });
      expect(login.headers.getSetCookie()[0]).toMatch(/^lwc_session=.*; Domain=127\.0\.0\.1; .*Secure/);
      await login.text();
    });
  });
});

describe("duplicate cookies", () => {
  it("150 validly signed stale values cost one store read", async () => {
    const inner = createMemoryStore();
    let reads = 0;
    const counting: KeyValueStore = {
      kind: "memory",
      get: (key) => {
        reads += 1;
        return inner.get(key);
      },
      set: (key, value, ttl) => inner.set(key, value, ttl),
      delete: (key) => inner.delete(key),
      setIfAbsent: (key, value, ttl) => inner.setIfAbsent(key, value, ttl),
      deleteIfEquals: (key, value) => inner.deleteIfEquals(key, value),
      replaceIfEquals: (key, expected, value, ttl) => inner.replaceIfEquals(key, expected, value, ttl),
    };
    const handler = {
      sessionStore: counting,
      loginRateLimit: false,
      loginGlobalRateLimit: false,
      responsesProxy: { rateLimit: false },
    } as const;
    await withHarness({ handler }, async (h) => {
      const signer = createCookieSigner([TEST_SECRET]);
      const stale = await Promise.all(Array.from({ length: 150 }, () => signer.sign(randomId())));
      const header = stale.map((value) => `lwc_session=${value}`).join("; ");
      reads = 0;
      const reply = await fetch(`${h.served.url}${BASE}/session`, { headers: { cookie: header } });
      expect(reply.status).toBe(200);
      expect(await reply.json()).toEqual({ status: "unauthenticated" });
      expect(reads).toBe(1);
    });
  });
});
