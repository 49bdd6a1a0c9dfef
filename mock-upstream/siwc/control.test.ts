import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "../server";
import { postSiwcResponses, refreshSiwc, signInSiwc, siwcBody } from "./test-flow";

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

function control(method: string, path: string, body?: unknown) {
  return fetch(`${mock.url}/__mock/siwc/${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

it("settings and switches over HTTP, validated", async () => {
  const set = await control("POST", "settings", { errorStyle: "nested", usageLimit: 3 });
  expect(await set.json()).toMatchObject({ ok: true, settings: { errorStyle: "nested", usageLimit: 3, idTokenAud: "array" } });
  expect((await control("POST", "settings", { errorStyle: "xml" })).status).toBe(400);
  expect((await control("POST", "settings", { nonsense: 1 })).status).toBe(400);
  expect((await control("POST", "switches", { switch: "jwks_empty", times: 2 })).status).toBe(200);
  expect((await control("POST", "switches", { switch: "no_such_switch" })).status).toBe(400);
  const state = (await (await control("GET", "state")).json()) as { state: { switches: unknown[] } };
  expect(state.state.switches).toEqual([{ switch: "jwks_empty", times: 2 }]);
  await control("DELETE", "switches");
  expect(mock.siwc.snapshot().switches).toEqual([]);
});

it("state shows registrations, families and the authorize log, without tokens", async () => {
  const { clientId, tokens } = await signInSiwc(mock);
  const text = await (await control("GET", "state")).text();
  expect(text).not.toContain(tokens.refresh_token!);
  expect(text).not.toContain(tokens.access_token);
  const { state } = JSON.parse(text) as { state: Record<string, { clientId: string }[]> };
  expect(state.registrations![0]!.clientId).toBe(clientId);
  expect(state.families![0]).toMatchObject({ clientId, ended: null });
  expect(state.authorizations).toHaveLength(1);
});

it("disconnect ends the client's families silently: refresh and API calls fail afterwards", async () => {
  const { clientId, tokens } = await signInSiwc(mock);
  expect(await (await control("POST", "disconnect", { clientId })).json()).toEqual({ ok: true, ended: 1 });
  expect(await (await refreshSiwc(mock, clientId, tokens.refresh_token!)).json()).toMatchObject({ error: "refresh_token_invalidated" });
  expect((await postSiwcResponses(mock, tokens.access_token, siwcBody())).status).toBe(401);
  expect(mock.siwc.snapshot().families[0]!.ended).toBe("disconnected");
});

it("accounts: eligibility changes what /v1/responses allows", async () => {
  const { tokens } = await signInSiwc(mock);
  const changed = await control("POST", "accounts", { email: "demo@example.com", eligibility: "workspace_ineligible" });
  expect(await changed.json()).toMatchObject({ ok: true, account: { email: "demo@example.com", eligibility: "workspace_ineligible" } });
  const reply = await postSiwcResponses(mock, tokens.access_token, siwcBody());
  expect(reply.status).toBe(403);
  expect(await reply.json()).toMatchObject({ error: { code: "subscription_sharing_user_not_eligible" } });
});

it("clock moves token expiry; models replaces the catalog until deleted; requests lists the SIWC traffic", async () => {
  const { tokens } = await signInSiwc(mock);
  expect(await (await control("POST", "clock", { advanceSeconds: 3601 })).json()).toEqual({ ok: true, clockOffsetSeconds: 3601 });
  expect((await postSiwcResponses(mock, tokens.access_token, siwcBody())).status).toBe(401);
  await control("POST", "clock", { advanceSeconds: -3601 });

  const put = await control("PUT", "models", { models: [{ slug: "only-one", display_name: "Only one", visibility: "list" }] });
  expect(put.status).toBe(200);
  const auth = { authorization: `Bearer ${tokens.access_token}` };
  const listed = (await (await fetch(`${mock.siwcApiBase}/models`, { headers: auth })).json()) as { models: { slug: string; supported_in_api: boolean }[] };
  expect(listed.models).toEqual([expect.objectContaining({ slug: "only-one", supported_in_api: true })]);
  await control("DELETE", "models");
  const restored = (await (await fetch(`${mock.siwcApiBase}/models`, { headers: auth })).json()) as { models: unknown[] };
  expect(restored.models.length).toBeGreaterThan(1);

  const { requests } = (await (await control("GET", "requests")).json()) as { requests: { method: string; path: string }[] };
  expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
    "GET /siwc/api/accounts/authorize",
    "POST /siwc/api/accounts/authorize/decision",
    "POST /siwc/api/accounts/oauth/token",
    "POST /siwc/v1/responses",
    "GET /siwc/v1/models",
    "GET /siwc/v1/models",
  ]);
});

it("reset forgets registrations, settings and switches", async () => {
  await signInSiwc(mock);
  mock.siwc.configure({ errorStyle: "nested" });
  mock.siwc.arm({ switch: "jwks_empty" });
  await fetch(`${mock.url}/__mock/reset`, { method: "POST" });
  const snapshot = mock.siwc.snapshot();
  expect(snapshot.registrations).toEqual([]);
  expect(snapshot.switches).toEqual([]);
  expect(snapshot.settings.errorStyle).toBe("oauth");
});
