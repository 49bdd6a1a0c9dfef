/** GET /models is served from the per-account cache and under a per-session limit. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createEvidence, findLeakedTokens, signIn, startHarness, type Harness } from "./harness";

const evidence = createEvidence();
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ evidence, handler: { responsesProxy: { rateLimit: { limit: 30, windowMs: 3_600_000 } } } });
  h.mock.setOptions({ accessTokenTtlSeconds: 3600 });
});
afterAll(async () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
  await h.close();
});

const modelCalls = () => h.mock.requests({ path: "/backend-api/codex/models" }).length;

it("60 concurrent /models from one session: 30 answered from one upstream call, 30 refused with 429", async () => {
  const user = h.client();
  await signIn(h, user, { accountId: "acct_models_flood", email: "flood@example.com" });
  const before = modelCalls();
  const replies = await Promise.all(Array.from({ length: 60 }, () => user.get("/models")));
  const ok = replies.filter((reply) => reply.status === 200);
  const limited = replies.filter((reply) => reply.status === 429);
  expect(ok).toHaveLength(30);
  expect(limited).toHaveLength(30);
  expect(ok.every((reply) => Array.isArray(reply.json().models) && (reply.json().models as unknown[]).length > 0)).toBe(true);
  expect(limited[0]!.json()).toMatchObject({ models: [], error: "rate_limited", retryAfterSeconds: expect.any(Number) });
  expect(limited[0]!.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(modelCalls() - before).toBe(1);
});

it("a second session of the same account is served from the cache", async () => {
  const other = h.client();
  await signIn(h, other, { accountId: "acct_models_flood", email: "flood@example.com" });
  const before = modelCalls();
  expect((await other.get("/models")).status).toBe(200);
  expect(modelCalls()).toBe(before);
});
