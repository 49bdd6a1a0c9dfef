/**
 * Agent voice behind two instances sharing one store (two handlers, one memory store, one mock: the
 * shape of two servers sharing Redis). A live session hosted by one instance is served by the other:
 * its events, a confirmation, hang-up and sign-out; a new start of the login replaces it; the caps
 * count both instances; the host shutting down ends the other's stream. Each test ends with no
 * codex process left on either (finish()).
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStore } from "@/lib/stores";
import type { KeyValueStore } from "@/lib/stores/types";
import { loadProtocolValidator, type ProtocolValidator } from "@/test-support/fake-app-server/protocol-schema";
import { findLeakedTokens, signIn, TestClient } from "./harness";
import { isAlive, OFFER_SDP, openEvents, startAgentHarness, waitForExit, type AgentHarness } from "./app-server-harness";

let validator: ProtocolValidator;
let instances: AgentHarness[] = [];

beforeAll(() => {
  validator = loadProtocolValidator();
});

afterEach(async () => {
  for (const h of instances) expect(findLeakedTokens(h.evidence)).toEqual([]);
  const finished = await Promise.allSettled(instances.map((h) => h.finish(validator)));
  instances = [];
  for (const result of finished) if (result.status === "rejected") throw result.reason;
});

/** Two instances, A and B, sharing one store and one provider. */
async function twoInstances(agentVoice: { maxSessions?: number; maxSessionsPerAccount?: number } = {}) {
  const store: KeyValueStore = createMemoryStore();
  const a = await startAgentHarness({ handler: { sessionStore: store }, agentVoice });
  const b = await startAgentHarness({ sharedMock: a.mock, handler: { sessionStore: store }, agentVoice });
  instances = [a, b];
  return { a, b };
}

/** The same browser (its cookie) talking to another instance. */
function onInstance(h: AgentHarness, client: TestClient): TestClient {
  const other = new TestClient(h.served.port, h.evidence);
  other.cookie = client.cookie;
  return other;
}

describe("a live session hosted by one instance, served by the other", () => {
  it("events, a confirmation and hang-up on B for a call A hosts", async () => {
    const { a, b } = await twoInstances();
    const onA = await a.signedIn();
    const onB = onInstance(b, onA);
    const { sessionId } = await a.startLive(onA);
    const pid = await a.livePid();

    const events = await openEvents(onB, sessionId);
    expect(await events.next((e) => e.type === "session.started")).toMatchObject({ seq: 1, sessionId });
    await a.fake.send({ do: "tool_call", tool: "save_note", callId: "call_note", arguments: { text: "buy milk" } });
    expect(await events.next((e) => e.type === "tool.pending_confirmation")).toMatchObject({ callId: "call_note", review: { text: "buy milk" } });

    const confirmed = await onB.post(`/realtime/app-server/${sessionId}/confirm`, { callId: "call_note", confirmation: { approved: true } });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.json()).toEqual({ callId: "call_note", approved: true });
    expect(await events.next((e) => e.type === "tool.completed")).toMatchObject({ callId: "call_note", approved: true });
    expect((await onB.get("/realtime/app-server/notes")).json()).toMatchObject({ notes: [{ text: "buy milk" }] });
    // Confirmed once: a second confirmation is refused, as on the host.
    const again = await onB.post(`/realtime/app-server/${sessionId}/confirm`, { callId: "call_note", confirmation: { approved: true } });
    expect(again.status).toBe(409);

    const hungUp = await onB.request("DELETE", `/realtime/app-server/${sessionId}`);
    expect(hungUp.status, hungUp.text).toBe(200);
    expect(hungUp.json()).toEqual({ sessionId, status: "closed" });
    // The host ended its codex before B answered.
    expect(isAlive(pid)).toBe(false);
    expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "closed_by_client" });
    // And the stream ends there.
    expect((await events.rest()).at(-1)).toMatchObject({ type: "session.closed" });
  });

  it("a late stream on B resumes with ?after= and gets only what it missed", async () => {
    const { a, b } = await twoInstances();
    const onA = await a.signedIn();
    const { sessionId } = await a.startLive(onA);
    for (let i = 1; i <= 3; i += 1) await a.fake.send({ do: "handoff", transcript: `said ${i}` });
    const onHost = await openEvents(onA, sessionId);
    await onHost.next((e) => e.transcript === "said 3");
    onHost.close();

    const resumed = await openEvents(onInstance(b, onA), sessionId, 2);
    const first = await resumed.next(() => true);
    expect(first).toMatchObject({ seq: 3, type: "handoff", transcript: "said 2" });
    resumed.close();
    expect((await onA.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  });

  it("sign-out on B ends the call A hosts before B answers", async () => {
    const { a, b } = await twoInstances();
    const onA = await a.signedIn();
    const { sessionId } = await a.startLive(onA);
    const pid = await a.livePid();
    const events = await openEvents(onA, sessionId);

    expect((await onInstance(b, onA).post("/logout")).status).toBe(200);
    expect(isAlive(pid)).toBe(false);
    expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "logged_out" });
  });

  it("a new start of the login on B replaces the call on A", async () => {
    const { a, b } = await twoInstances();
    const onA = await a.signedIn();
    const { sessionId: first } = await a.startLive(onA);
    const firstPid = await a.livePid();
    const events = await openEvents(onA, first);

    const onB = onInstance(b, onA);
    const { sessionId: second } = await b.startLive(onB);
    expect(second).not.toBe(first);
    expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "replaced" });
    await waitForExit(firstPid);
    // The old id is still readable for a while, as closed; the new one is served by A too.
    const late = await openEvents(onA, second);
    expect(await late.next((e) => e.type === "session.started")).toMatchObject({ sessionId: second });
    late.close();
    expect((await onA.request("DELETE", `/realtime/app-server/${second}`)).status).toBe(200);
    await waitForExit(await b.livePid());
  });

  it("the other instance gets 404 for a session id that is not the login's", async () => {
    const { a, b } = await twoInstances();
    const owner = await a.signedIn();
    const { sessionId } = await a.startLive(owner);
    const stranger = b.client();
    await signIn(b, stranger);
    const denied = await stranger.post(`/realtime/app-server/${sessionId}/confirm`, { callId: "x", confirmation: { approved: true } });
    expect(denied.status).toBe(404);
    expect(denied.json()).toMatchObject({ error: "realtime_session_not_found" });
    expect((await stranger.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(404);
    expect((await owner.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  });

  it("the host shutting down ends the stream B serves with session.closed", async () => {
    const { a, b } = await twoInstances();
    const onA = await a.signedIn();
    const { sessionId } = await a.startLive(onA);
    const events = await openEvents(onInstance(b, onA), sessionId);
    await events.next((e) => e.type === "session.started");
    await a.provider.close();
    expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "shutdown" });
  });
});

describe("the caps count every instance", () => {
  it("per account: a second login of the account on B while A holds a call answers 429 realtime_busy, nothing spawned", async () => {
    const { a, b } = await twoInstances({ maxSessionsPerAccount: 1 });
    const first = await a.signedIn();
    const { sessionId } = await a.startLive(first);
    const second = b.client();
    await signIn(b, second);
    const refused = await second.post("/realtime/app-server", { sdp: OFFER_SDP, session: { voice: "cove" } });
    expect(refused.status).toBe(429);
    expect(refused.json()).toMatchObject({ error: "realtime_busy" });
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(await b.pids()).toEqual([]);
    expect((await first.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
    // Released everywhere once hung up.
    const { sessionId: next } = await b.startLive(second);
    expect((await second.request("DELETE", `/realtime/app-server/${next}`)).status).toBe(200);
  });

  it("per deploy: maxSessions counts the calls of both instances (503 realtime_busy)", async () => {
    const { a, b } = await twoInstances({ maxSessions: 1 });
    const first = await a.signedIn();
    const { sessionId } = await a.startLive(first);
    const other = b.client();
    await signIn(b, other, { accountId: "acct_other", email: "other@example.com" });
    const refused = await other.post("/realtime/app-server", { sdp: OFFER_SDP, session: { voice: "cove" } });
    expect(refused.status).toBe(503);
    expect(refused.json()).toMatchObject({ error: "realtime_busy" });
    expect(await b.pids()).toEqual([]);
    expect((await first.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  });
});
