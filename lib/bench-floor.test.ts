import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockUpstream, RESPONSES_PATH, type MockUpstream } from "@/mock-upstream/server";
import { signInThroughMock, type MockTokenSet } from "@/mock-upstream/sign-in";
import { backendHeaders, validBody } from "@/mock-upstream/test-utils";
import { benchFloorTarget, createBenchFloor } from "./bench-floor";

let mock: MockUpstream;
let tokens: MockTokenSet;

beforeAll(async () => {
  mock = await startMockUpstream();
  tokens = await signInThroughMock(mock, { accountId: "acct_demo" });
});
afterAll(() => mock.close());

const floorRequest = (init: RequestInit = {}) =>
  new Request("http://127.0.0.1/api/bench-floor", {
    method: "POST",
    headers: { ...backendHeaders(tokens), cookie: "lwc_session=a-session-cookie" },
    body: JSON.stringify(validBody()),
    ...init,
  });

describe("the bench's floor route", () => {
  it("answers 404 to every method unless LWC_BENCH_FLOOR=1", async () => {
    for (const env of [{}, { LWC_BENCH_FLOOR: "0" }, { LWC_BENCH_FLOOR: "true" }]) {
      const floor = createBenchFloor({ ...env, LWC_CODEX_BASE_URL: mock.codexBaseUrl });
      expect((await floor(floorRequest())).status).toBe(404);
      expect((await floor(new Request("http://127.0.0.1/api/bench-floor"))).status).toBe(404);
    }
    expect(mock.requests({ path: RESPONSES_PATH })).toHaveLength(0);
  });

  it("stays off when the model backend is not on loopback, so it never forwards to the real provider", () => {
    for (const base of [undefined, "https://chatgpt.com/backend-api/codex", "http://10.0.0.5:4010/backend-api/codex", "https://127.0.0.1:4010"]) {
      expect(benchFloorTarget({ LWC_BENCH_FLOOR: "1", LWC_CODEX_BASE_URL: base })).toBeNull();
    }
    expect(benchFloorTarget({ LWC_BENCH_FLOOR: "1", LWC_CODEX_BASE_URL: "http://127.0.0.1:4010/backend-api/codex/" })).toBe(
      "http://127.0.0.1:4010/backend-api/codex/responses",
    );
  });

  it("with LWC_BENCH_FLOOR=1 forwards a POST to the mock's /responses and pipes the stream back, without the cookie", async () => {
    const floor = createBenchFloor({ LWC_BENCH_FLOOR: "1", LWC_CODEX_BASE_URL: mock.codexBaseUrl });
    const reply = await floor(floorRequest());
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await reply.text()).toContain("event: response.completed");
    const forwarded = mock.requests({ path: RESPONSES_PATH }).at(-1)!;
    expect(forwarded.headers.authorization).toBe(`Bearer ${tokens.access_token}`);
    expect(forwarded.headers.cookie).toBeUndefined();
    expect(forwarded.headers.version).toBe(backendHeaders(tokens).version);
    expect((await floor(new Request("http://127.0.0.1/api/bench-floor"))).status).toBe(405);
  });
});
