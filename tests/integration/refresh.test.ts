import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createMemoryStore } from "@/lib/stores/memory-store";
import { sessionKey } from "@/lib/server/session/store";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { createEvidence, findLeakedTokens, signIn, startHarness, type Harness } from "./harness";

/** Access tokens that live 60 s: inside the 5-minute threshold from the start, so every use refreshes. */
const SHORT_TTL = 60;
const evidence = createEvidence();
let mock: MockUpstream;
let h: Harness;

beforeAll(async () => {
  mock = await startMockUpstream({ accessTokenTtlSeconds: SHORT_TTL });
  h = await startHarness({ evidence, sharedMock: mock });
});
afterAll(async () => {
  await h.close();
  await mock.close();
});
beforeEach(() => {
  mock.clearFaults();
  mock.setOptions({ accessTokenTtlSeconds: SHORT_TTL });
});

const refreshCalls = () =>
  mock.requests({ path: "/oauth/token" }).filter((r) => (r.body as { grant_type?: string }).grant_type === "refresh_token");

function idOf(cookie: string): string {
  return cookie.split(".")[0]!;
}

describe("refresh near expiry", () => {
  it("refreshes on /status and sends the rotated refresh token next time (never the same twice)", async () => {
    const client = h.client();
    await signIn(h, client);
    const before = refreshCalls().length;
    expect((await client.get("/status")).json().status).toBe("authenticated");
    expect((await client.get("/status")).json().status).toBe("authenticated");
    const sent = refreshCalls().slice(before).map((r) => (r.body as { refresh_token: string }).refresh_token);
    expect(sent).toHaveLength(2);
    expect(new Set(sent).size).toBe(2);
  });

  it("refreshes on /models before listing", async () => {
    const client = h.client();
    // An account of its own: the model list is cached per account, and this must be a cache miss.
    await signIn(h, client, { accountId: "acct_models_refresh", email: "models-refresh@example.com" });
    const before = refreshCalls().length;
    expect((await client.get("/models")).status).toBe(200);
    expect(refreshCalls().length).toBe(before + 1);
    const models = mock.requests({ path: "/backend-api/codex/models" }).at(-1)!;
    const refreshedAt = refreshCalls().at(-1)!.receivedAt;
    expect(models.receivedAt).toBeGreaterThanOrEqual(refreshedAt);
  });

  it("does not refresh a token far from expiry", async () => {
    mock.setOptions({ accessTokenTtlSeconds: 3600 });
    const client = h.client();
    await signIn(h, client);
    const before = refreshCalls().length;
    await client.get("/status");
    await client.get("/models");
    expect(refreshCalls().length).toBe(before);
  });

  it("lets 20 parallel /models on a near-expiry token cause exactly one refresh, and loses no session", async () => {
    const client = h.client();
    await signIn(h, client);
    // The refreshed token is long-lived, so late readers see it fresh and do not refresh again.
    mock.setOptions({ accessTokenTtlSeconds: 3600 });
    const before = refreshCalls().length;
    const replies = await Promise.all(Array.from({ length: 20 }, () => client.get("/models")));
    replies.forEach((reply) => expect(reply.status).toBe(200));
    expect(refreshCalls().length).toBe(before + 1);
    expect((await client.get("/session")).json().status).toBe("authenticated");
    expect((await client.get("/models")).status).toBe(200);
  });

  it("refreshes once across two instances sharing one store (lock in the store)", async () => {
    const shared = createMemoryStore();
    const a = await startHarness({ evidence, sharedMock: mock, handler: { sessionStore: shared } });
    const b = await startHarness({ evidence, sharedMock: mock, handler: { sessionStore: shared } });
    try {
      const onA = a.client();
      await signIn(a, onA);
      const onB = b.client();
      onB.cookie = onA.cookie;
      mock.setOptions({ accessTokenTtlSeconds: 3600 });
      const before = refreshCalls().length;
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? onA : onB).get("/models")),
      );
      replies.forEach((reply) => expect(reply.status).toBe(200));
      expect(refreshCalls().length).toBe(before + 1);
      expect((await onB.get("/session")).json().status).toBe("authenticated");
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe("a dead refresh token", () => {
  it("deletes the session and reports expired/refresh_token_invalid on /status", async () => {
    const client = h.client();
    await signIn(h, client, { accountId: "acct_dead" });
    const id = idOf(client.cookie!);
    expect(await h.store.get(sessionKey(id))).not.toBeNull();
    mock.addFault({ fault: "dead_refresh_token", accountId: "acct_dead" });
    const reply = await client.get("/status");
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({ status: "expired", error: "refresh_token_invalid", message: expect.any(String) });
    expect(await h.store.get(sessionKey(id))).toBeNull();
    expect((await client.get("/session")).json()).toEqual({ status: "unauthenticated" });
    expect((await client.get("/models")).status).toBe(401);
    expect((await client.post("/responses", { model: "gpt-5.5", input: "hi" })).status).toBe(401);
  });

  it("answers /models with 401 not_authenticated and deletes the session", async () => {
    const client = h.client();
    await signIn(h, client, { accountId: "acct_dead2" });
    mock.addFault({ fault: "dead_refresh_token", accountId: "acct_dead2" });
    const reply = await client.get("/models");
    expect(reply.status).toBe(401);
    expect(reply.json()).toMatchObject({ models: [], error: "not_authenticated" });
    expect(await h.store.get(sessionKey(idOf(client.cookie!)))).toBeNull();
  });
});

describe("a transient refresh failure", () => {
  it("keeps the session: /status stays authenticated, /models answers 502, the next call recovers", async () => {
    const client = h.client();
    await signIn(h, client, { accountId: "acct_flaky" });
    mock.addFault({ fault: "refresh_server_error", accountId: "acct_flaky", times: 2 });
    const status = await client.get("/status");
    expect(status.json()).toMatchObject({ status: "authenticated", user: { accountId: "acct_flaky" } });
    const models = await client.get("/models");
    expect(models.status).toBe(502);
    expect(models.json()).toEqual({ models: [], error: "token_refresh_failed", message: expect.any(String) });
    expect(await h.store.get(sessionKey(idOf(client.cookie!)))).not.toBeNull();
    expect((await client.get("/models")).status).toBe(200);
    expect(evidence.logs.some((l) => l.message.includes("token refresh failed: code=token_refresh_failed"))).toBe(true);
  });
});

it("never leaks a token into a response body or a log line", () => {
  expect(evidence.issuedTokens.size).toBeGreaterThan(0);
  expect(findLeakedTokens(evidence)).toEqual([]);
});
