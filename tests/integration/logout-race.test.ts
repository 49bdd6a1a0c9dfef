/**
 * Sign-out stays final across instances: instance A holds the refresh lock longer than sign-out on
 * instance B waits for it (a slow identity provider, then a slow store write), so B signs out
 * without the lock. A's rotated tokens must not write the session back, and the refresh token that
 * survives the rotation is revoked.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createUpstashStore } from "@/lib/stores/upstash-store";
import type { KeyValueStore } from "@/lib/stores/types";
import { REFRESH_WAIT_MAX_MS } from "@/lib/server/session/refresh";
import { SESSION_KEY_PREFIX } from "@/lib/server/session/store";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { startRedisServer, type RedisServer } from "@/test-support/redis-server";
import { startUpstashBridge, type UpstashBridge } from "@/test-support/upstash-bridge";
import { createEvidence, findLeakedTokens, signIn, startHarness, type Harness } from "./harness";

const evidence = createEvidence();
const BRIDGE_TOKEN = "bridge-token-for-logout-race";
/** Together longer than sign-out waits for the lock; the refresh alone stays under its own 10 s cut-off. */
const SLOW_REFRESH_MS = REFRESH_WAIT_MAX_MS - 1_000;
const SLOW_WRITE_MS = 3_000;

let redis: RedisServer;
let bridge: UpstashBridge;
let mock: MockUpstream;
let a: Harness;
let b: Harness;
let slow = false;
let refreshStarted: () => void = () => undefined;
let rotatedRefreshToken: string | undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Instance A's identity provider answers refreshes slowly (the network in between, not our code). */
const slowIdentityProvider: typeof fetch = async (input, init) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const isRefresh = url.endsWith("/oauth/token") && String(init?.body ?? "").includes("refresh_token");
  if (!slow || !isRefresh) return fetch(input, init);
  refreshStarted();
  await sleep(SLOW_REFRESH_MS);
  const response = await fetch(input, init);
  rotatedRefreshToken = ((await response.clone().json()) as { refresh_token?: string }).refresh_token;
  return response;
};

/** Instance A's store writes sessions slowly (a congested Redis). */
function withSlowSessionWrites(inner: KeyValueStore & { redis: unknown }): KeyValueStore {
  const slowly = async <T>(key: string, write: () => Promise<T>) => {
    if (slow && key.startsWith(SESSION_KEY_PREFIX)) await sleep(SLOW_WRITE_MS);
    return write();
  };
  return {
    ...inner,
    set: (key, value, ttl) => slowly(key, () => inner.set(key, value, ttl)),
    replaceIfEquals: (key, expected, value, ttl) => slowly(key, () => inner.replaceIfEquals(key, expected, value, ttl)),
  };
}

beforeAll(async () => {
  redis = await startRedisServer();
  bridge = await startUpstashBridge({ redisPort: redis.port, token: BRIDGE_TOKEN });
  mock = await startMockUpstream({ accessTokenTtlSeconds: 60 });
  const store = () => createUpstashStore({ url: bridge.url, token: BRIDGE_TOKEN, timeoutMs: 2_000 });
  a = await startHarness({
    evidence,
    sharedMock: mock,
    handler: { sessionStore: withSlowSessionWrites(store()), upstream: { fetch: slowIdentityProvider } },
  });
  b = await startHarness({ evidence, sharedMock: mock, handler: { sessionStore: store() } });
});
afterAll(async () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
  await Promise.all([a?.close(), b?.close()]);
  await mock?.close();
  await bridge?.close();
  await redis?.dispose();
});

it("a refresh that outlasts sign-out's wait cannot write the session back, and its new refresh token is revoked", async () => {
  const onA = a.client();
  await signIn(a, onA, { accountId: "acct_logout_race" });
  const onB = b.client();
  onB.cookie = onA.cookie;

  slow = true;
  const started = new Promise<void>((resolve) => (refreshStarted = resolve));
  const refreshing = onA.get("/status"); // near expiry: A refreshes, holding the login's refresh lock
  await started;
  const logout = await onB.post("/logout");
  expect(logout.json()).toEqual({ status: "unauthenticated" });
  await refreshing;
  slow = false;

  expect(rotatedRefreshToken).toMatch(/^rt_/);
  // The session stays gone on both instances.
  const replay = b.client();
  replay.cookie = onA.cookie;
  expect((await replay.get("/session")).json()).toEqual({ status: "unauthenticated" });
  expect((await a.client().get("/session", { cookie: `lwc_session=${onA.cookie}` })).json()).toEqual({ status: "unauthenticated" });
  // The newest refresh token was revoked (sign-out itself could only revoke the one it replaced).
  const revoked = mock.requests({ path: "/oauth/revoke" }).map((r) => (r.body as { token?: string }).token);
  expect(revoked).toContain(rotatedRefreshToken);
}, 40_000);
