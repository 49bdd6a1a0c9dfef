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
