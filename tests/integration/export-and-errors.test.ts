import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isProviderAuthError } from "@/lib/upstream/errors";
import type { KeyValueStore } from "@/lib/stores/types";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { BASE, createEvidence, findLeakedTokens, signIn, startHarness, type Harness } from "./harness";

const evidence = createEvidence();
let mock: MockUpstream;

beforeAll(async () => {
  mock = await startMockUpstream();
});
afterAll(() => mock.close());

function requestWithCookie(harness: Harness, cookie: string | undefined, loginNonce?: string): Request {
  const headers = new Headers(cookie ? { cookie: `lwc_session=${cookie}` } : {});
  if (loginNonce) headers.set("x-lwc-login-nonce", loginNonce);
  return new Request(`${harness.served.url}${BASE}/session`, { headers });
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isProviderAuthError(error)) return error.code;
    throw error;
  }
  return "resolved";
}

describe("dangerouslyGetTokens", () => {
  it("is off by default: token_export_disabled", async () => {
    const h = await startHarness({ evidence, sharedMock: mock });
    try {
      const client = h.client();
      await signIn(h, client);
      expect(await codeOf(h.provider.dangerouslyGetTokens(requestWithCookie(h, client.cookie)))).toBe("token_export_disabled");
    } finally {
      await h.close();
    }
  });

  it("exports access/id token but the refresh token only with its own flag", async () => {
    const h = await startHarness({ evidence, sharedMock: mock, handler: { dangerouslyAllowTokenExport: true } });
    const full = await startHarness({
      evidence,
      sharedMock: mock,
      handler: { dangerouslyAllowTokenExport: true, dangerouslyAllowRefreshTokenExport: true },
    });
    try {
      const client = h.client();
      await signIn(h, client);
      const request = requestWithCookie(h, client.cookie);
      const tokens = await h.provider.dangerouslyGetTokens(request);
      expect(tokens).toEqual({
        accessToken: expect.any(String),
        idToken: expect.any(String),
        accountId: "acct_demo",
        expiresAt: expect.any(Number),
      });
      expect(evidence.issuedTokens.has(tokens.accessToken)).toBe(true);
      expect(await codeOf(h.provider.dangerouslyGetTokens(request, { includeRefreshToken: true }))).toBe(
        "refresh_token_export_disabled",
      );
      expect(await codeOf(h.provider.dangerouslyGetTokens(requestWithCookie(h, undefined)))).toBe("not_authenticated");

      const fullClient = full.client();
      await signIn(full, fullClient);
      const withRefresh = await full.provider.dangerouslyGetTokens(requestWithCookie(full, fullClient.cookie), {
        includeRefreshToken: true,
      });
      expect(withRefresh.refreshToken).toMatch(/^rt_/);
      expect(evidence.issuedTokens.has(withRefresh.refreshToken!)).toBe(true);
    } finally {
      await Promise.all([h.close(), full.close()]);
    }
  });
});

describe("getSession", () => {
  it("returns the public state of the request's session without polling", async () => {
    const h = await startHarness({ evidence, sharedMock: mock });
    try {
      const client = h.client({ page: true });
      expect(await h.provider.getSession(requestWithCookie(h, undefined))).toEqual({ status: "unauthenticated" });
      await client.post("/login");
      const polls = mock.requests({ path: "/api/accounts/deviceauth/token" }).length;
      expect((await h.provider.getSession(requestWithCookie(h, client.cookie, client.loginNonce))).status).toBe("pending");
      // A login the page started (bound to its nonce): the same cookie without it shows no pending code.
      expect(await h.provider.getSession(requestWithCookie(h, client.cookie))).toEqual({ status: "unauthenticated" });
      // A login started with the cookie alone (the contract's way) is shown for the cookie alone.
      const contractClient = h.client();
      await contractClient.post("/login");
      expect((await h.provider.getSession(requestWithCookie(h, contractClient.cookie))).status).toBe("pending");
      expect(mock.requests({ path: "/api/accounts/deviceauth/token" }).length).toBe(polls);
    } finally {
      await h.close();
    }
  });
});

describe("unexpected failures", () => {
  it("answers 500 internal_error without details and logs one line without the secret", async () => {
    const brokenStore: KeyValueStore = {
      kind: "memory",
      get: () => Promise.reject(new Error("disk on fire")),
      set: () => Promise.reject(new Error("disk on fire")),
      delete: () => Promise.reject(new Error("disk on fire")),
      setIfAbsent: () => Promise.reject(new Error("disk on fire")),
      deleteIfEquals: () => Promise.reject(new Error("disk on fire")),
      replaceIfEquals: () => Promise.reject(new Error("disk on fire")),
    };
    const h = await startHarness({
      evidence,
      sharedMock: mock,
      handler: {
        sessionStore: brokenStore,
        loginRateLimit: false,
        loginGlobalRateLimit: false,
        responsesProxy: { rateLimit: false },
      },
    });
    try {
      // A forged cookie never reaches the store (the signature is checked first).
      const forged = h.client();
      forged.cookie = `${"A".repeat(43)}.${"B".repeat(43)}`;
      expect((await forged.get("/session")).json()).toEqual({ status: "unauthenticated" });
      // Saving the new pending session hits the broken store.
      const logsBefore = evidence.logs.length;
      const login = await h.client().post("/login");
      expect(login.status).toBe(500);
      expect(login.text).toBe('{"error":"internal_error"}');
      expect(login.headers.get("cache-control")).toBe("no-store");
      expect(evidence.logs.length).toBe(logsBefore + 1);
      const line = evidence.logs.at(-1)!;
      // The class name only: an exception's message can carry header values or body text.
      expect(line.message).toMatch(/^\[login-with-chatgpt\] internal error on POST \/login: Error request_id=[0-9a-f-]{36}$/);
      expect(line.message).not.toContain("\n");
    } finally {
      await h.close();
    }
  });
});

it("never leaks a token into a response body or a log line", () => {
  expect(evidence.issuedTokens.size).toBeGreaterThan(0);
  expect(findLeakedTokens(evidence)).toEqual([]);
});
