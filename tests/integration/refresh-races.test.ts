import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStore } from "@/lib/stores/memory-store";
import { StoreUnavailableError, type KeyValueStore } from "@/lib/stores/types";
import { REFRESH_LOCK_PREFIX } from "@/lib/server/session/refresh";
import { createEvidence, findLeakedTokens, signIn, startHarness, type Harness } from "./harness";

const evidence = createEvidence();
let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
  expect(findLeakedTokens(evidence)).toEqual([]);
});

function isRefreshCall(url: string, init?: RequestInit): boolean {
  return new URL(url).pathname === "/oauth/token" && typeof init?.body === "string" && init.body.includes('"refresh_token"');
}

const refreshRequests = (harness: Harness) =>
  harness.mock
    .requests({ path: "/oauth/token" })
    .filter((r) => (r.body as { grant_type?: string } | null)?.grant_type === "refresh_token");

describe("sign-out while a refresh of the same login is running", () => {
  it("waits for the refresh, so the session is not written back, and revokes the new refresh token", async () => {
    let markStarted!: () => void;
    const refreshStarted = new Promise<void>((resolve) => (markStarted = resolve));
    let releaseRefresh!: () => void;
    const refreshReleased = new Promise<void>((resolve) => (releaseRefresh = resolve));
    const gatedFetch: typeof fetch = async (input, init) => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      if (isRefreshCall(url, init)) {
        markStarted();
        await refreshReleased;
      }
      return fetch(input, init);
    };
    h = await startHarness({ evidence, mock: { accessTokenTtlSeconds: 60 }, handler: { upstream: { fetch: gatedFetch } } });
    const client = h.client();
    await signIn(h, client);
    const signedInCookie = client.cookie;

    const status = client.get("/status");
    await refreshStarted;
    const logout = client.post("/logout");
    releaseRefresh();
    expect((await status).status).toBe(200);
    expect((await logout).json()).toEqual({ status: "unauthenticated" });

    const stale = h.client();
    stale.cookie = signedInCookie;
    expect((await stale.get("/session")).json()).toEqual({ status: "unauthenticated" });
    const [refresh] = refreshRequests(h);
    const revoked = h.mock.requests({ path: "/oauth/revoke" }).at(-1)?.body as { token?: string } | undefined;
    expect(revoked?.token).toBeDefined();
    expect(revoked?.token).not.toBe((refresh?.body as { refresh_token: string }).refresh_token);
  });
});

describe("rotated tokens that the store fails to save", () => {
  it("are used by the next refresh of that login instead of resending the replaced refresh token", async () => {
    const memory = createMemoryStore();
    const lockKeys = new Set<string>();
    let failSessionWrites = 0;
    const flakyStore: KeyValueStore = {
      ...memory,
      kind: "memory",
      async set(key, value, ttlMs) {
        if (key.startsWith("lwc:session:") && failSessionWrites > 0) {
          failSessionWrites -= 1;
          throw new StoreUnavailableError("store write failed (test)");
        }
        return memory.set(key, value, ttlMs);
      },
      // Rotated tokens are saved with a compare-and-set: the same failure applies.
      async replaceIfEquals(key, expected, value, ttlMs) {
        if (key.startsWith("lwc:session:") && failSessionWrites > 0) {
          failSessionWrites -= 1;
          throw new StoreUnavailableError("store write failed (test)");
        }
        return memory.replaceIfEquals(key, expected, value, ttlMs);
      },
      async setIfAbsent(key, value, ttlMs) {
        if (key.startsWith(REFRESH_LOCK_PREFIX)) lockKeys.add(key);
        return memory.setIfAbsent(key, value, ttlMs);
      },
    };
    h = await startHarness({
      evidence,
      mock: { accessTokenTtlSeconds: 60 },
      handler: {
        sessionStore: flakyStore,
        loginRateLimit: false,
        loginGlobalRateLimit: false,
        responsesProxy: { rateLimit: false },
      },
    });
    const client = h.client();
    await signIn(h, client);
    h.mock.setOptions({ accessTokenTtlSeconds: 3600 });

    failSessionWrites = 3; // the save and both of its retries
    const failed = await client.get("/status");
    expect(failed.status).toBe(503);
    expect(refreshRequests(h)).toHaveLength(1);

    // The holder kept the lock so no other instance resends the dead token; let it expire.
    for (const key of lockKeys) await memory.delete(key);
    const recovered = await client.get("/status");
    expect(recovered.json()).toMatchObject({ status: "authenticated" });
    expect(refreshRequests(h)).toHaveLength(1);
    expect((await client.get("/models")).status).toBe(200);
  });
});
