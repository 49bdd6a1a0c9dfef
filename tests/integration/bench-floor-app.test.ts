/**
 * The benchmark's floor (scripts/bench/floor-app/, never part of the product): a bare forward to the
 * mock's /responses, only ever to a loopback address, without the browser's cookie.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockUpstream, RESPONSES_PATH, type MockUpstream } from "@/mock-upstream/server";
import { signInThroughMock, type MockTokenSet } from "@/mock-upstream/sign-in";
import { backendHeaders, validBody } from "@/mock-upstream/test-utils";
import { createFloor, FLOOR_PATH, floorTarget } from "@/scripts/bench/floor-app/forward";

let mock: MockUpstream;
let tokens: MockTokenSet;

beforeAll(async () => {
  mock = await startMockUpstream();
  tokens = await signInThroughMock(mock, { accountId: "acct_demo" });
});
afterAll(() => mock.close());

const floorRequest = (init: RequestInit = {}) =>
  new Request(`http://127.0.0.1${FLOOR_PATH}`, {
    method: "POST",
    headers: { ...backendHeaders(tokens), cookie: "lwc_session=a-session-cookie" },
    body: JSON.stringify(validBody()),
    ...init,
  });

describe("the benchmark's floor app", () => {
  it("forwards only to a loopback model backend, so it never reaches the real provider", async () => {
    for (const base of [undefined, "https://chatgpt.com/backend-api/codex", "http://10.0.0.5:4010/backend-api/codex", "https://127.0.0.1:4010"]) {
      expect(floorTarget({ LWC_CODEX_BASE_URL: base })).toBeNull();
      expect((await createFloor({ LWC_CODEX_BASE_URL: base })(floorRequest())).status).toBe(503);
    }
    expect(floorTarget({ LWC_CODEX_BASE_URL: "http://127.0.0.1:4010/backend-api/codex/" })).toBe("http://127.0.0.1:4010/backend-api/codex/responses");
    expect(mock.requests({ path: RESPONSES_PATH })).toHaveLength(0);
  });

  it("forwards a POST to the mock's /responses and pipes the stream back, without the cookie", async () => {
    const floor = createFloor({ LWC_CODEX_BASE_URL: mock.codexBaseUrl });
    const reply = await floor(floorRequest());
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await reply.text()).toContain("event: response.completed");
    const forwarded = mock.requests({ path: RESPONSES_PATH }).at(-1)!;
    expect(forwarded.headers.authorization).toBe(`Bearer ${tokens.access_token}`);
    expect(forwarded.headers.cookie).toBeUndefined();
    expect(forwarded.headers.version).toBe(backendHeaders(tokens).version);
    expect((await floor(new Request(`http://127.0.0.1${FLOOR_PATH}`))).status).toBe(405);
  });
});
