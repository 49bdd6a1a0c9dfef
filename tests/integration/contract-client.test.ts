/**
 * A client written only from the HTTP contract: a cookie jar and the documented bodies, no header
 * of ours (no x-lwc-login-nonce, no Origin). Over real HTTP it signs in, polls, lists models,
 * streams a reply, uses both realtime routes (the direct WebRTC exchange and an agent-voice
 * session with its events and a confirmation) and signs out.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadProtocolValidator } from "@/test-support/fake-app-server/protocol-schema";
import { TestBrowserPeer } from "@/mock-upstream/voice/test-browser-peer";
import { isAlive, OFFER_SDP, openEvents, startAgentHarness, waitForExit, type AgentHarness } from "./app-server-harness";
import { findLeakedTokens, responsesBody, sameLogin } from "./harness";

let h: AgentHarness;
let peer: TestBrowserPeer;

beforeAll(async () => {
  h = await startAgentHarness();
  peer = new TestBrowserPeer();
});
afterAll(async () => {
  await peer?.close();
  expect(findLeakedTokens(h.evidence)).toEqual([]);
  await h.finish(loadProtocolValidator());
});

it("signs in, polls, lists models, streams, uses both realtime routes and signs out with the cookie alone", async () => {
  const client = h.client();
  const sent: Headers[] = [];
  const raw = client.raw.bind(client);
  client.raw = async (method, path, init = {}) => {
    sent.push(new Headers(init.headers));
    return raw(method, path, init);
  };

  // Sign in: the code, a second POST /login that reuses it, polls until approval.
  const login = await client.post("/login");
  expect(login.status).toBe(200);
  const pending = login.json<{ status: string; userCode: string; verificationUrl: string; interval: number; expiresAt: number }>();
  expect(pending).toMatchObject({ status: "pending", userCode: expect.any(String), interval: expect.any(Number) });
  expect(client.cookie).toBeDefined();
  const codes = h.mock.requests({ path: "/api/accounts/deviceauth/usercode" }).length;
  expect((await client.post("/login")).json()).toEqual(sameLogin(pending));
  expect(h.mock.requests({ path: "/api/accounts/deviceauth/usercode" })).toHaveLength(codes);
  expect((await client.get("/session")).json()).toEqual(sameLogin(pending));
  expect((await client.get("/status")).json()).toEqual(sameLogin(pending));
  expect(h.mock.approve(pending.userCode)).toBe(true);
  h.clock.advance(pending.interval * 1000);
  const signedIn = await client.get("/status");
  expect(signedIn.json()).toEqual({
    status: "authenticated",
    user: { accountId: "acct_demo", email: "demo@example.com", plan: "plus" },
    capabilities: { voice: true, agentVoice: true, pictures: true, tokenExport: true },
  });
  expect((await client.get("/session")).json()).toMatchObject({ status: "authenticated" });

  // Models and a streamed reply.
  const models = (await client.get("/models")).json<{ models: string[] }>().models;
  expect(models).toContain("gpt-5.5");
  const reply = await client.post("/responses", responsesBody("hello there"));
  expect(reply.status).toBe(200);
  expect(reply.headers.get("content-type")).toMatch(/^text\/event-stream/);
  expect(reply.text).toContain("event: response.completed");

  // The direct realtime exchange: a real WebRTC offer for the provider's answer.
  const realtime = await client.post("/realtime", { sdp: await peer.offer(), session: { voice: "maple" } });
  expect(realtime.status).toBe(201);
  expect(realtime.headers.get("content-type")).toBe("application/sdp");
  expect(realtime.text).toMatch(/^v=0\r\n/);

  // Agent voice: start, its events, a tool call waiting for confirmation, the confirmation.
  const started = await client.post("/realtime/app-server", { sdp: OFFER_SDP, session: { voice: "cove", model: "gpt-5.5" } });
  expect(started.status).toBe(201);
  const { sessionId, sdp } = started.json<{ sessionId: string; sdp: string }>();
  expect(sdp).toMatch(/^v=0/);
  const events = await openEvents(client, sessionId);
  expect(events.response.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
  expect(await events.next((event) => event.type === "session.started")).toBeDefined();
  await h.fake.send({ do: "tool_call", tool: "save_note", callId: "call_contract", arguments: { text: "from the contract" } });
  expect(await events.next((event) => event.type === "tool.pending_confirmation")).toMatchObject({ callId: "call_contract" });
  const confirmed = await client.post(`/realtime/app-server/${sessionId}/confirm`, { callId: "call_contract", confirmation: { approved: true } });
  expect(confirmed.status).toBe(200);
  expect(await events.next((event) => event.type === "tool.completed")).toMatchObject({ callId: "call_contract" });
  const livePid = await h.livePid();

  // Sign out: the session is gone and so is the live process.
  const logout = await client.post("/logout");
  expect(logout.json()).toEqual({ status: "unauthenticated" });
  expect(logout.headers.getSetCookie()[0]).toMatch(/Max-Age=0/);
  expect(client.cookie).toBeUndefined();
  await events.rest();
  events.close();
  await waitForExit(livePid);
  expect(isAlive(livePid)).toBe(false);
  expect((await client.get("/session")).json()).toEqual({ status: "unauthenticated" });
  expect((await client.get("/models")).status).toBe(401);

  // Nothing but the cookie and the documented bodies' content type ever went out.
  for (const headers of sent) {
    expect([...headers.keys()].filter((name) => name !== "content-type")).toEqual([]);
  }
});
