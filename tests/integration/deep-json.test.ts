/** A deeply nested body is a 400 found during validation, before it can cost a rate-limit slot. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createEvidence, findLeakedTokens, responsesBody, signIn, startHarness, type Harness } from "./harness";

const evidence = createEvidence();
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ evidence, handler: { responsesProxy: { rateLimit: { limit: 1, windowMs: 3_600_000 } } } });
});
afterAll(async () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
  await h.close();
});

it("answers 400 to a body nested 10,000 deep (about 20 KB) and keeps the rate-limit slot", async () => {
  const user = h.client();
  await signIn(h, user);
  const depth = 10_000;
  const deep = `{"model":"gpt-5.5","input":"hi","metadata":${"[".repeat(depth)}${"]".repeat(depth)}}`;
  expect(deep.length).toBeLessThan(25_000);
  const reply = await user.post("/responses", deep);
  expect(reply.status).toBe(400);
  expect(reply.json()).toEqual({ error: "invalid_responses_request", message: expect.stringMatching(/nests deeper/) });
  // The one allowed request of the window is still there.
  expect((await user.post("/responses", responsesBody())).status).toBe(200);
});

it("still accepts ordinary nesting (a tool schema a few levels deep)", async () => {
  const user = h.client();
  await signIn(h, user);
  let schema: Record<string, unknown> = { type: "string" };
  for (let level = 0; level < 20; level += 1) schema = { type: "object", properties: { inner: schema } };
  const reply = await user.post("/responses", responsesBody(undefined, { tools: [{ type: "function", name: "f", parameters: schema }] }));
  expect(reply.status).toBe(200);
});

it("/realtime refuses a deeply nested body the same way (one JSON body reader for every route)", async () => {
  const user = h.client();
  await signIn(h, user);
  const deep = `{"sdp":"v=0","session":{"voice":${"[".repeat(100)}${"]".repeat(100)}}}`;
  const reply = await user.post("/realtime", deep);
  expect(reply.status).toBe(400);
  expect(reply.json()).toEqual({ error: "invalid_realtime_request", message: expect.stringMatching(/nests deeper/) });
});
