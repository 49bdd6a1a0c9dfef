import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "./server";
import { signInThroughMock, type MockTokenSet } from "./sign-in";
import { getModels } from "./test-utils";

let mock: MockUpstream;
let plus: MockTokenSet;
let free: MockTokenSet;
beforeAll(async () => {
  mock = await startMockUpstream();
  plus = await signInThroughMock(mock);
  free = await signInThroughMock(mock, { accountId: "acct_free", plan: "free", email: "free@example.com" });
});
afterAll(() => mock.close());

type Model = Record<string, unknown> & { slug: string; visibility: string; priority: number };

async function models(tokens: MockTokenSet, query?: string, accountId?: string): Promise<Model[]> {
  const reply = await getModels(mock, tokens, query, accountId);
  expect(reply.status).toBe(200);
  return ((await reply.json()) as { models: Model[] }).models;
}

describe("GET /models", () => {
  it("lists full entries for a paid plan, including hidden ones", async () => {
    const list = await models(plus);
    expect(list.map((m) => m.slug).sort()).toEqual(
      ["codex-auto-review", "gpt-5.5", "gpt-5.5-codex", "gpt-5.5-codex-internal", "gpt-5.5-mini"].sort(),
    );
    const listed = list.filter((m) => m.visibility === "list").sort((a, b) => a.priority - b.priority);
    expect(listed.map((m) => m.slug)).toEqual(["gpt-5.5", "gpt-5.5-codex", "gpt-5.5-mini"]);
    expect(list.find((m) => m.slug === "gpt-5.5-codex-internal")?.visibility).toBe("hide");
    expect(list.find((m) => m.slug === "codex-auto-review")?.visibility).toBe("none");
    const main = list.find((m) => m.slug === "gpt-5.5")!;
    expect(main).toMatchObject({
      display_name: "GPT-5.5",
      description: expect.any(String),
      default_reasoning_level: "medium",
      context_window: expect.any(Number),
      input_modalities: ["text", "image"],
    });
    expect(main.supported_reasoning_levels).toContainEqual({ effort: "high", description: expect.any(String) });
    expect((main.service_tiers as { id: string }[]).map((t) => t.id)).toEqual(["priority", "flex"]);
    expect((list.find((m) => m.slug === "gpt-5.5-codex")!.service_tiers as { id: string }[]).map((t) => t.id)).toEqual(["priority"]);
    expect(list.find((m) => m.slug === "gpt-5.5-mini")!.service_tiers).toEqual([]);
    expect(main).not.toHaveProperty("plans");
  });

  it("lists only gpt-5.5-mini for the free plan", async () => {
    const list = await models(free, undefined, "acct_free");
    expect(list.map((m) => m.slug)).toEqual(["gpt-5.5-mini"]);
  });

  it("answers an empty list without client_version or with an older one", async () => {
    expect(await models(plus, "")).toEqual([]);
    expect(await models(plus, "?client_version=0.149.9")).toEqual([]);
    expect(await models(plus, "?client_version=garbage")).toEqual([]);
    expect((await models(plus, "?client_version=0.150.0")).length).toBeGreaterThan(0);
    expect((await models(plus, "?client_version=1.0.0")).length).toBeGreaterThan(0);
  });

  it("follows minClientVersion", async () => {
    mock.setOptions({ minClientVersion: "0.170.0" });
    try {
      expect(await models(plus, "?client_version=0.169.0")).toEqual([]);
    } finally {
      mock.setOptions({ minClientVersion: "0.150.0" });
    }
  });

  it("records the originator header", async () => {
    await models(plus);
    const recorded = await mock.waitForRequest((r) => r.path === "/backend-api/codex/models" && r.completed);
    expect(recorded.headers.originator).toBe("codex_cli_rs");
    expect(recorded.query).toEqual({ client_version: "0.169.0" });
  });
});
