import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { untilWindowHasRoom } from "@/test-support/rate-limit-window";
import { refreshRequests, startCluster, TEST_SECRET, type Cluster } from "./cluster";
import { responsesBody, SessionClient } from "./session-client";

let cluster: Cluster;
let accountNumber = 0;
const nextAccount = () => {
  accountNumber += 1;
  return { accountId: `acct_multi_${accountNumber}`, email: `multi${accountNumber}@example.com` };
};

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

describe("two instances sharing Upstash Redis", () => {
  it("a login made on A is known to B: /session, /models and /responses work there", async () => {
    const client = new SessionClient();
    await client.signIn(cluster.a.url, cluster.mock, nextAccount());

    const session = await client.json<{ status: string; user: { email: string } }>(cluster.b.url, "/session");
    expect(session.body.status).toBe("authenticated");
    expect(session.body.user.email).toBe(`multi${accountNumber}@example.com`);

    const models = await client.json<{ models: string[] }>(cluster.b.url, "/models");
    expect(models.status).toBe(200);
    expect(models.body.models).toContain("gpt-5.5");

    const reply = await client.request(cluster.b.url, "/responses", { method: "POST", body: responsesBody("hello from B") });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toContain("text/event-stream");
    expect(await reply.text()).toContain("response.completed");
  });

  it("100 concurrent /responses spread over A and B against a limit of 30: exactly 30 pass", async () => {
    const client = new SessionClient();
    await client.signIn(cluster.a.url, cluster.mock, nextAccount());
    // The default limit is 30 per fixed one-minute window: keep the burst inside one window.
    await untilWindowHasRoom(60_000, 10_000);

    const results = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const base = i % 2 === 0 ? cluster.a.url : cluster.b.url;
        const response = await client.request(base, "/responses", { method: "POST", body: responsesBody(`burst ${i}`) });
        const body = await response.text();
        return { status: response.status, retryAfter: response.headers.get("retry-after"), body };
      }),
    );
    const passed = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(passed).toHaveLength(30);
    expect(limited).toHaveLength(70);
    for (const r of limited) {
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
      expect(JSON.parse(r.body)).toMatchObject({ error: "rate_limited" });
    }
  });

  it("40 concurrent requests over A and B on a near-expiry login cause exactly one upstream refresh", async () => {
    // Sign in with tokens that are already inside the refresh threshold, then let the refresh issue long-lived ones.
    cluster.mock.setOptions({ accessTokenTtlSeconds: 120 });
    const client = new SessionClient();
    await client.signIn(cluster.a.url, cluster.mock, nextAccount());
    cluster.mock.setOptions({ accessTokenTtlSeconds: 3600 });
    const refreshesBefore = refreshRequests(cluster.mock);

    const results = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const base = i % 2 === 0 ? cluster.a.url : cluster.b.url;
        const path = i % 4 < 2 ? "/models" : "/status";
        const response = await client.request(base, path);
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      }),
    );

    expect(results.map((r) => r.status)).toEqual(Array(40).fill(200));
    expect(refreshRequests(cluster.mock) - refreshesBefore).toBe(1);
    const after = await client.json<{ status: string }>(cluster.b.url, "/status");
    expect(after.body.status).toBe("authenticated");
  });

  it("killing A mid-stream loses no session: B keeps serving and A comes back signed in", async () => {
    const client = new SessionClient();
    await client.signIn(cluster.a.url, cluster.mock, nextAccount());
    cluster.mock.setOptions({ streamChunkDelayMs: 200 });
    try {
      const reply = await client.request(cluster.a.url, "/responses", { method: "POST", body: responsesBody("a long answer please") });
      expect(reply.status).toBe(200);
      const reader = reply.body!.getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);

      await cluster.a.stop({ crash: true });
      await expect(reader.read()).rejects.toThrow();

      const onB = await client.json<{ status: string }>(cluster.b.url, "/session");
      expect(onB.body.status).toBe("authenticated");
      await cluster.a.restart();
      const onA = await client.json<{ status: string }>(cluster.a.url, "/session");
      expect(onA.body.status).toBe("authenticated");
    } finally {
      cluster.mock.setOptions({ streamChunkDelayMs: 2 });
    }
  });

  it("rotating LWC_SECRET (new first, old second) and restarting both keeps people signed in", async () => {
    const client = new SessionClient();
    await client.signIn(cluster.a.url, cluster.mock, nextAccount());
    const rotated = `rotated-secret-for-tests-${"x".repeat(24)},${TEST_SECRET}`;
    await Promise.all([cluster.a.restart({ LWC_SECRET: rotated }), cluster.b.restart({ LWC_SECRET: rotated })]);

    for (const base of [cluster.a.url, cluster.b.url]) {
      const session = await client.json<{ status: string }>(base, "/session");
      expect(session.body.status).toBe("authenticated");
    }
    const models = await client.json<{ models: string[] }>(cluster.a.url, "/models");
    expect(models.status).toBe(200);

    // A brand-new cookie is signed with the new secret and is valid on both instances.
    const fresh = new SessionClient();
    await fresh.signIn(cluster.b.url, cluster.mock, nextAccount());
    expect((await fresh.json<{ status: string }>(cluster.a.url, "/session")).body.status).toBe("authenticated");
  });

  it("Redis unreachable answers 503 store_unavailable quickly; when it returns, everyone recovers", async () => {
    const client = new SessionClient();
    await client.signIn(cluster.a.url, cluster.mock, nextAccount());

    await cluster.redis.stop();
    for (const base of [cluster.a.url, cluster.b.url]) {
      const startedAt = Date.now();
      const down = await client.json<{ error: string }>(base, "/session");
      expect(down.status).toBe(503);
      expect(down.body.error).toBe("store_unavailable");
      expect(Date.now() - startedAt).toBeLessThan(8_000);
    }
    // The uptime check says so too, without naming the store's address or token.
    const degraded = await fetch(`${cluster.a.url}/api/health`);
    expect(degraded.status).toBe(503);
    expect(await degraded.json()).toEqual({
      status: "degraded",
      store: "unavailable",
      modelAccess: "on",
      agentVoice: "off",
      reasons: ["store_unavailable"],
    });

    await cluster.redis.start();
    for (const base of [cluster.a.url, cluster.b.url]) {
      const back = await client.json<{ status: string }>(base, "/session");
      expect(back.status).toBe(200);
      expect(back.body.status).toBe("authenticated");
    }
    const healthy = await fetch(`${cluster.b.url}/api/health`);
    expect(healthy.status).toBe(200);
    expect(await healthy.json()).toEqual({ status: "ok", store: "ok", modelAccess: "on", agentVoice: "off" });
  });
});

describe("the server-side example route (proxyFetch) on a production server", () => {
  it("writes a haiku as the signed-in user, and refuses a foreign origin or no session", async () => {
    const client = new SessionClient();
    await client.signIn(cluster.a.url, cluster.mock, nextAccount());
    const post = (init: RequestInit = {}) =>
      fetch(`${cluster.b.url}/api/example/haiku`, {
        method: "POST",
        body: JSON.stringify({ topic: "rain" }),
        ...init,
        headers: { "content-type": "application/json", ...(init.headers as Record<string, string>) },
      });

    const written = await post({ headers: { cookie: `lwc_session=${client.cookie}` } });
    expect(written.status).toBe(200);
    const body = (await written.json()) as { model: string; haiku: string };
    // With no model named, the route takes the first usable model /models lists: the mock's default.
    expect(body.model).toBe("gpt-6.1-sol");
    expect(body.haiku).toContain("rain");

    const foreign = await post({ headers: { cookie: `lwc_session=${client.cookie}`, origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ error: "origin_not_allowed", origin: "https://evil.example" });

    const anonymous = await post();
    expect(anonymous.status).toBe(401);
  });
});
