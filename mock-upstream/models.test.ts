import { afterAll, beforeAll, describe, expect, it } from "vitest";
import clientVersionFile from "@/lib/upstream/client-version.json";
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
      ["codex-auto-review", "gpt-5.4-mini", "gpt-5.5", "gpt-6-astra", "gpt-6-luna", "gpt-6-sol", "gpt-6.1-sol", "gpt-7-sol"].sort(),
    );
    const listed = list.filter((m) => m.visibility === "list").sort((a, b) => a.priority - b.priority);
    expect(listed.map((m) => m.slug)).toEqual(["gpt-6.1-sol", "gpt-6-astra", "gpt-6-sol", "gpt-6-luna", "gpt-7-sol", "gpt-5.5", "gpt-5.4-mini"]);
    expect(list.find((m) => m.slug === "codex-auto-review")?.visibility).toBe("hide");
    const main = list.find((m) => m.slug === "gpt-6.1-sol")!;
    expect(main).toMatchObject({
      display_name: "GPT-6.1 Sol",
      description: expect.any(String),
      default_reasoning_level: "low",
      minimal_client_version: "0.153.0",
      context_window: 272_000,
      input_modalities: ["text", "image"],
    });
    const efforts = (slug: string) => (list.find((m) => m.slug === slug)!.supported_reasoning_levels as { effort: string }[]).map((l) => l.effort);
    expect(efforts("gpt-6.1-sol")).toEqual(["low", "medium", "high", "xhigh", "max", "ultra"]);
    expect(efforts("gpt-6-luna")).toEqual(["low", "medium", "high", "xhigh", "max"]);
    expect(efforts("gpt-5.5")).toEqual(["low", "medium", "high", "xhigh"]);
    expect(main.service_tiers).toEqual([{ id: "priority", name: "Fast", description: expect.any(String) }]);
    expect(list.find((m) => m.slug === "gpt-5.4-mini")!.service_tiers).toEqual([]);
    expect(list.find((m) => m.slug === "gpt-5.4-mini")!.input_modalities).toEqual(["text"]);
    expect(main).not.toHaveProperty("plans");
  });

  it("lists only gpt-5.4-mini for the free plan", async () => {
    const list = await models(free, undefined, "acct_free");
    expect(list.map((m) => m.slug)).toEqual(["gpt-5.4-mini"]);
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
    expect(recorded.query).toEqual({ client_version: clientVersionFile.clientVersion });
  });
});
