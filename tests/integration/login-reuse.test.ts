/**
 * Concurrent POST /login with one pending cookie: the contract says a still-valid pending code is
 * reused and "no upstream call is made". Requests that arrive while (or after) another request
 * moved the login to a new session id must not ask the identity provider for a new code either.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvidence, findLeakedTokens, startHarness, type Harness } from "./harness";

const evidence = createEvidence();
let h: Harness;

beforeAll(async () => {
  // Generous login limits: only the reuse rule may keep these requests from reaching upstream.
  h = await startHarness({
    evidence,
    handler: { loginRateLimit: { limit: 1000, windowMs: 60_000 }, loginGlobalRateLimit: { limit: 1000, windowMs: 60_000 } },
  });
});
afterAll(async () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
  await h.close();
});

const usercodeCalls = () => h.mock.requests({ path: "/api/accounts/deviceauth/usercode" }).length;

describe.each([
  { who: "our page, with the login's nonce", page: true },
  { who: "a contract client, with the cookie alone", page: false },
])("25 concurrent POST /login with one pending cookie: $who", ({ page }) => {
  it("make no upstream call and leave at most one live pending login", async () => {
    const client = h.client({ page });
    const started = (await client.post("/login")).json<{ userCode: string }>();
    const sent: Record<string, string> = { cookie: `lwc_session=${client.cookie}` };
    if (client.loginNonce !== undefined) sent["x-lwc-login-nonce"] = client.loginNonce;
    const codesBefore = usercodeCalls();

    const replies = await Promise.all(
      Array.from({ length: 25 }, () => fetch(h.url("/login"), { method: "POST", headers: sent })),
    );
    const bodies = await Promise.all(replies.map(async (reply) => (await reply.json()) as { status: string; userCode?: string }));
    evidence.bodies.push(...bodies.map((body) => JSON.stringify(body)));

    expect(usercodeCalls() - codesBefore).toBe(0);
    // Each reply is the same pending code, or the per-login reuse limit (429).
    for (const [index, reply] of replies.entries()) {
      if (reply.status === 429) continue;
      expect(reply.status).toBe(200);
      expect(bodies[index]).toMatchObject({ status: "pending", userCode: started.userCode });
    }

    // Every session id handed out, and the one we started with: one of them still holds the login.
    const holders = [
      sent,
      ...replies
        .filter((reply) => reply.headers.getSetCookie().length > 0)
        .map((reply) => {
          const holder: Record<string, string> = { cookie: reply.headers.getSetCookie()[0]!.split(";")[0]! };
          const nonce = reply.headers.get("x-lwc-login-nonce");
          if (nonce !== null) holder["x-lwc-login-nonce"] = nonce;
          return holder;
        }),
    ];
    const states = await Promise.all(
      holders.map(async (headers) => ((await (await fetch(h.url("/session"), { headers })).json()) as { status: string }).status),
    );
    expect(states.filter((status) => status === "pending")).toHaveLength(1);
  });
});

describe("a poll in flight while POST /login moves the login", () => {
  it("writes nothing back under the old id and signs its holder in to nothing; the mover signs in", async () => {
    // The identity provider's next device poll waits until the test lets it go.
    let gate: { reached: () => void; released: Promise<void> } | undefined;
    const holdNextPoll = () => {
      let release!: () => void;
      let reached!: () => void;
      const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
      gate = { reached, released: new Promise<void>((resolve) => (release = resolve)) };
      return { reached: reachedPromise, release };
    };
    const gatedFetch: typeof fetch = async (input, init) => {
      const held = gate;
      if (held && String(input).endsWith("/api/accounts/deviceauth/token")) {
        gate = undefined;
        held.reached();
        await held.released;
      }
      return fetch(input, init);
    };
    const g = await startHarness({ evidence, sharedMock: h.mock, handler: { upstream: { fetch: gatedFetch } } });
    try {
      const owner = g.client();
      const { userCode, interval } = (await owner.post("/login")).json<{ userCode: string; interval: number }>();
      // Someone else holds the same (planted) cookie and polls with it.
      const other = g.client();
      other.cookie = owner.cookie;
      const poll = holdNextPoll();
      const otherStatus = other.get("/status");
      await poll.reached;

      // Meanwhile the owner's POST /login moves the login to a new id, and the owner approves the code.
      expect((await owner.post("/login")).json()).toMatchObject({ status: "pending", userCode });
      expect(owner.cookie).not.toBe(other.cookie);
      expect(g.mock.approve(userCode)).toBe(true);
      poll.release();

      const late = await otherStatus;
      expect(late.json()).toEqual({ status: "unauthenticated" });
      expect(late.headers.getSetCookie()).toEqual([]);
      expect((await other.get("/session")).json()).toEqual({ status: "unauthenticated" });

      g.clock.advance(interval * 1000);
      expect((await owner.get("/status")).json()).toMatchObject({ status: "authenticated" });
    } finally {
      await g.close();
    }
  });
});
