/**
 * The plan-usage gate of a SIWC session holds on the record a refresh leaves: when the refreshed
 * grant lacks chatgpt.tokens.use.direct (the person took plan usage back), /responses and /models
 * answer 403 plan_usage_not_granted before anything goes to the SIWC API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { createEvidence, findLeakedTokens, PROMPT_MARKER, startHarness, type Harness, type TestClient } from "./harness";
import { siwcHandlerOptions, signInWithSiwc } from "./siwc-proxy-support";

const evidence = createEvidence();
let mock: MockUpstream;
let harness: Harness;

beforeAll(async () => {
  mock = await startMockUpstream();
  harness = await startHarness({ sharedMock: mock, evidence, handler: siwcHandlerOptions(mock) });
});
afterAll(async () => {
  await harness?.close();
  await mock?.close();
});

const body = {
  model: "gpt-5.5",
  stream: true,
  store: false,
  input: [{ role: "user", content: [{ type: "input_text", text: `hello there ${PROMPT_MARKER}` }] }],
};

const apiCalls = () => ({
  models: mock.requests({ path: "/siwc/v1/models" }).length,
  responses: mock.requests({ path: "/siwc/v1/responses" }).length,
});

/** The access token's hour passes; the refresh that follows is granted without plan usage. */
function nextRefreshDropsPlanUsage(): void {
  mock.siwc.arm({ switch: "refresh_without_plan_usage" });
  harness.clock.advance(61 * 60_000);
  mock.siwc.advanceClock(61 * 60);
}

async function expectPlanUsageGone(person: TestClient): Promise<void> {
  expect((await person.get("/session")).json()).toMatchObject({ status: "authenticated", signIn: "siwc", siwc: { planUsage: false } });
}

describe("a SIWC session whose refresh comes back without plan usage", () => {
  it("/responses answers 403 plan_usage_not_granted and asks the API nothing (model list not cached yet)", async () => {
    const person = await signInWithSiwc(harness);
    nextRefreshDropsPlanUsage();
    const before = apiCalls();
    const reply = await person.post("/responses", body);
    expect(reply.status).toBe(403);
    expect(reply.json()).toMatchObject({ error: "plan_usage_not_granted", message: expect.stringMatching(/Enable plan usage/) });
    expect(apiCalls()).toEqual(before);
    await expectPlanUsageGone(person);
  });

  it("/responses answers 403 plan_usage_not_granted and asks the API nothing (model list cached)", async () => {
    const person = await signInWithSiwc(harness);
    expect((await person.get("/models")).status).toBe(200);
    nextRefreshDropsPlanUsage();
    const before = apiCalls();
    const reply = await person.post("/responses", body);
    expect(reply.status).toBe(403);
    expect(reply.json()).toMatchObject({ error: "plan_usage_not_granted" });
    expect(apiCalls()).toEqual(before);
    await expectPlanUsageGone(person);
  });

  it("/models answers 403 plan_usage_not_granted with models: [] and asks the API nothing", async () => {
    const person = await signInWithSiwc(harness);
    nextRefreshDropsPlanUsage();
    const before = apiCalls();
    const reply = await person.get("/models");
    expect(reply.status).toBe(403);
    expect(reply.json()).toMatchObject({ models: [], error: "plan_usage_not_granted" });
    expect(apiCalls()).toEqual(before);
    await expectPlanUsageGone(person);
  });

  it("no token or prompt text in any body or log line", () => {
    expect(findLeakedTokens(evidence)).toEqual([]);
  });
});
