import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MOCK_CLIENT_ID, RESPONSES_PATH, startMockUpstream, type MockUpstream, type RecordedRequest } from "./server";
import { exchangeCodeWithMock, jwtPayload, signInThroughMock, type DeviceGrant, type MockTokenSet } from "./sign-in";
import { getModels, postJson, postResponses, validBody } from "./test-utils";

let mock: MockUpstream;
let tokens: MockTokenSet;
beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 1 });
  tokens = await signInThroughMock(mock);
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const control = (path: string, body?: unknown, method = "POST") =>
  fetch(`${mock.url}/__mock/${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function newDevice() {
  const reply = await postJson(`${mock.issuer}/api/accounts/deviceauth/usercode`, { client_id: MOCK_CLIENT_ID });
  return (await reply.json()) as { device_auth_id: string; user_code: string };
}
const poll = (device: { device_auth_id: string; user_code: string }) => postJson(`${mock.issuer}/api/accounts/deviceauth/token`, device);

describe("recording", () => {
  it("records method, path, query, lower-case headers and the parsed body", async () => {
    await getModels(mock, tokens, "?client_version=0.169.0&x=1");
    await postJson(`${mock.issuer}/oauth/revoke`, { token: "t", token_type_hint: "refresh_token", client_id: MOCK_CLIENT_ID });
    const [models] = mock.requests({ path: "/backend-api/codex/models" });
    expect(models).toMatchObject({
      method: "GET",
      path: "/backend-api/codex/models",
      query: { client_version: "0.169.0", x: "1" },
      headers: { "chatgpt-account-id": "acct_demo", originator: "codex_cli_rs" },
      completed: true,
      aborted: false,
      status: 200,
    });
    expect(typeof models!.receivedAt).toBe("number");
    const [revoke] = mock.requests({ path: "/oauth/revoke" });
    expect(revoke!.body).toEqual({ token: "t", token_type_hint: "refresh_token", client_id: MOCK_CLIENT_ID });
    expect(mock.requests()).toHaveLength(2);
  });

  it("returns copies, so callers cannot change the record", async () => {
    await getModels(mock, tokens);
    mock.requests()[0]!.path = "/changed";
    expect(mock.requests()[0]!.path).toBe("/backend-api/codex/models");
  });

  it("waitForRequest resolves for a future request and for an existing one", async () => {
    const waiting = mock.waitForRequest((r) => r.path === "/backend-api/codex/models");
    await getModels(mock, tokens);
    expect((await waiting).path).toBe("/backend-api/codex/models");
    expect((await mock.waitForRequest((r) => r.path === "/backend-api/codex/models")).method).toBe("GET");
  });

  it("waitForRequest rejects after its timeout", async () => {
    await expect(mock.waitForRequest((r) => r.path === "/never", 50)).rejects.toThrow(/no matching request/);
  });

  it("marks a /responses stream aborted when the client goes away, and stops writing", async () => {
    mock.setOptions({ streamChunkDelayMs: 200 });
    const controller = new AbortController();
    const reply = await postResponses(mock, tokens, validBody(), undefined, controller.signal);
    const reader = reply.body!.getReader();
    await reader.read();
    const aborted = mock.waitForAbort();
    controller.abort();
    const record: RecordedRequest = await aborted;
    expect(record).toMatchObject({ path: RESPONSES_PATH, aborted: true, completed: false, status: 200 });
  });

  it("marks an abort during slow_first_byte too", async () => {
    mock.addFault({ fault: "slow_first_byte", delayMs: 5_000 });
    const controller = new AbortController();
    const pending = postResponses(mock, tokens, validBody(), undefined, controller.signal).catch((error: unknown) => error);
    await mock.waitForRequest((r) => r.path === RESPONSES_PATH);
    controller.abort();
    expect((await mock.waitForAbort()).status).toBe(0);
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe("control API over HTTP", () => {
  it("has a health route", async () => {
    const reply = await control("health", undefined, "GET");
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ ok: true, url: mock.url });
  });

  it("approves with an account, denies and expires codes; 404 for unknown codes", async () => {
    const device = await newDevice();
    expect((await control("approve", { userCode: device.user_code.toLowerCase(), account: { plan: "pro", accountId: "acct_pro" } })).status).toBe(200);
    const { id_token: idToken } = await exchangeCodeWithMock(mock, (await (await poll(device)).json()) as DeviceGrant);
    expect(jwtPayload(idToken)["https://api.openai.com/auth"]).toMatchObject({ chatgpt_account_id: "acct_pro", chatgpt_plan_type: "pro" });

    const denied = await newDevice();
    expect((await control("deny", { userCode: denied.user_code })).status).toBe(200);
    expect((await poll(denied)).status).toBe(400);
    const expired = await newDevice();
    expect((await control("expire", { userCode: expired.user_code })).status).toBe(200);
    expect(await (await poll(expired)).json()).toMatchObject({ error: { code: "expired_token" } });

    const unknown = await control("approve", { userCode: "ZZZZ-0000" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ ok: false, error: "unknown_code" });
    expect((await control("deny", { userCode: "ZZZZ-0000" })).status).toBe(404);
    expect((await control("expire", { userCode: "ZZZZ-0000" })).status).toBe(404);
    expect((await control("approve", {})).status).toBe(400);
  });

  it("adds and clears faults", async () => {
    expect((await control("faults", { fault: "server_error", times: 0 })).status).toBe(200);
    expect((await getModels(mock, tokens)).status).toBe(500);
    expect((await getModels(mock, tokens)).status).toBe(500);
    expect((await control("faults", undefined, "DELETE")).status).toBe(200);
    expect((await getModels(mock, tokens)).status).toBe(200);
  });

  it("lists recorded requests, filtered by path, without recording itself", async () => {
    await getModels(mock, tokens);
    await postJson(`${mock.issuer}/oauth/revoke`, { token: "t", client_id: MOCK_CLIENT_ID });
    const all = (await (await control("requests", undefined, "GET")).json()) as { requests: RecordedRequest[] };
    expect(all.requests.map((r) => r.path)).toEqual(["/backend-api/codex/models", "/oauth/revoke"]);
    const filtered = (await (await control("requests?path=/oauth/revoke", undefined, "GET")).json()) as { requests: RecordedRequest[] };
    expect(filtered.requests).toHaveLength(1);
    expect(filtered.requests[0]!.body).toMatchObject({ token: "t" });
  });

  it("sets options and resets them", async () => {
    expect((await control("options", { pollIntervalSeconds: 1 })).status).toBe(200);
    expect(((await newDevice()) as unknown as { interval: string }).interval).toBe("1");
    expect((await control("options", { pollIntervalSeconds: "soon" })).status).toBe(400);
    expect((await control("options", { bogus: 1 })).status).toBe(400);
    await control("faults", { fault: "server_error", times: 0 });
    expect((await control("reset")).status).toBe(200);
    expect(((await newDevice()) as unknown as { interval: string }).interval).toBe("5");
    expect((await getModels(mock, tokens)).status).toBe(200);
    // reset forgets requests and device codes, not logins.
    expect(mock.requests().map((r) => r.path)).toEqual(["/api/accounts/deviceauth/usercode", "/backend-api/codex/models"]);
  });

  it("answers 404 for unknown control routes and unknown paths, 405 for a wrong method", async () => {
    expect((await control("nothing")).status).toBe(404);
    expect((await fetch(`${mock.url}/nowhere`)).status).toBe(404);
    expect((await fetch(`${mock.codexBaseUrl}/responses`)).status).toBe(405);
  });
});
