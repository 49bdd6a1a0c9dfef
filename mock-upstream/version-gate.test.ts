import { afterAll, beforeAll, describe, expect, it } from "vitest";
import clientVersionFile from "@/lib/upstream/client-version.json";
import { startMockUpstream, type MockUpstream } from "./server";
import { signInThroughMock, type MockTokenSet } from "./sign-in";
import { backendHeaders, getModels, validBody } from "./test-utils";

/**
 * The real backend gates models on the client's version at inference: `/responses` for a model
 * whose `minimal_client_version` is above the request's `version` header answers 400, and a request
 * without the header counts as too old.
 */
const OURS = clientVersionFile.clientVersion;

let mock: MockUpstream;
let tokens: MockTokenSet;
beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  tokens = await signInThroughMock(mock);
});
afterAll(() => mock.close());

type Model = { slug: string; minimal_client_version?: string; visibility: string };

async function catalog(): Promise<Model[]> {
  const reply = await getModels(mock, tokens, `?client_version=${OURS}`);
  return ((await reply.json()) as { models: Model[] }).models;
}

function post(model: string, version: string | null, extra: Record<string, unknown> = {}) {
  const headers = backendHeaders(tokens);
  delete headers.version;
  if (version !== null) headers.version = version;
  return fetch(`${mock.codexBaseUrl}/responses`, { method: "POST", headers, body: JSON.stringify(validBody({ model, ...extra })) });
}

const newer = (slug: string) => `The '${slug}' model requires a newer version of Codex. Please upgrade to the latest app or CLI and try again.`;

describe("version gating at /responses", () => {
  it("gives every catalog entry a minimal_client_version, and gates at least one listed model above ours", async () => {
    const models = await catalog();
    expect(models.every((model) => typeof model.minimal_client_version === "string")).toBe(true);
    const [major, minor] = OURS.split(".").map(Number);
    const above = models.filter((model) => model.visibility === "list" && model.minimal_client_version === `${major}.${minor! + 1}.0`);
    expect(above.map((model) => model.slug)).toEqual(["gpt-7-sol"]);
  });

  it("answers the real 400 for a model above the request's version header, and serves it at that version", async () => {
    const refused = await post("gpt-7-sol", OURS);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ detail: newer("gpt-7-sol") });

    const gated = (await catalog()).find((model) => model.slug === "gpt-7-sol")!;
    const served = await post("gpt-7-sol", gated.minimal_client_version!);
    expect(served.status).toBe(200);
    await served.text();
  });

  it("counts a missing or malformed version header as too old for a gated model", async () => {
    for (const version of [null, "", "latest"]) {
      const reply = await post("gpt-6.1-sol", version);
      expect(reply.status).toBe(400);
      expect(await reply.json()).toEqual({ detail: newer("gpt-6.1-sol") });
    }
    const older = await post("gpt-6-sol", "0.154.9");
    expect(await older.json()).toEqual({ detail: newer("gpt-6-sol") });
    const ours = await post("gpt-6.1-sol", OURS);
    expect(ours.status).toBe(200);
    await ours.text();
  });

  it("answers 'not supported' for retired slugs, whatever the version", async () => {
    for (const slug of ["gpt-5.1", "gpt-5.1-codex", "gpt-5.1-codex-mini", "gpt-5.3-codex", "gpt-5.4"]) {
      const reply = await post(slug, OURS);
      expect(reply.status).toBe(400);
      expect(await reply.json()).toEqual({ detail: `The '${slug}' model is not supported when using Codex with a ChatGPT account.` });
    }
  });
});

describe("today's efforts at /responses", () => {
  it("refuses minimal for the newest models and accepts max", async () => {
    const minimal = await post("gpt-6.1-sol", OURS, { reasoning: { effort: "minimal" } });
    expect(minimal.status).toBe(400);
    expect(((await minimal.json()) as { detail: string }).detail).toMatch(/does not support 'minimal' with the 'gpt-6.1-sol' model/);
    const max = await post("gpt-6.1-sol", OURS, { reasoning: { effort: "max" } });
    expect(max.status).toBe(200);
    await max.text();
  });

  it("refuses ultra on a direct call although the catalog lists it (Codex sends it as max)", async () => {
    const ultra = (await catalog()).find((model) => model.slug === "gpt-6.1-sol") as unknown as { supported_reasoning_levels: { effort: string }[] };
    expect(ultra.supported_reasoning_levels.map((level) => level.effort)).toContain("ultra");
    const reply = await post("gpt-6.1-sol", OURS, { reasoning: { effort: "ultra" } });
    expect(reply.status).toBe(400);
    const detail = ((await reply.json()) as { detail: string }).detail;
    expect(detail).toMatch(/does not support 'ultra'/);
    expect(detail).toMatch(/'max'\.$/);
  });
});
