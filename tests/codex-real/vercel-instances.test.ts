/**
 * Agent voice with `sandbox: "vercel"` on two instances sharing one store (two handlers, one memory
 * store, one mock, one fake Vercel Sandbox API), with the real codex in the fake's VMs: a call started
 * on A is served by B (events, a confirmation, hang-up), and a sign-out on B stops A's VM before it
 * answers. Each test ends with zero live sandboxes in the fake and none of the processes its VMs ran.
 */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { CLOSED_SESSION_RETENTION_MS } from "@/lib/agent-voice/live-sessions";
import { referenceConfirmTool, referenceTools } from "@/lib/agent-voice/tools";
import { createMemoryStore } from "@/lib/stores";
import type { KeyValueStore } from "@/lib/stores/types";
import { SIDEBAND_IN, SIDEBAND_PATH } from "@/mock-upstream/codex";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import type { FakeVercelSandbox } from "@/mock-upstream/vercel-sandbox/server";
import { openEvents } from "@/tests/integration/app-server-harness";
import { findLeakedTokens, signIn, startHarness, TestClient, type Harness } from "@/tests/integration/harness";
import { processAlive, waitUntil } from "@/test-support/session-relay-process";
import { codexExecutable } from "./codex-binary";
import { loopbackOffer, type LoopbackOffer } from "./loopback-offer";
import { processTree } from "./served-app";
import { startVercelFake } from "./vercel-fake";

const CREDENTIALS = ["VERCEL_TOKEN", "VERCEL_TEAM_ID", "VERCEL_PROJECT_ID"] as const;
let mock: MockUpstream;
let fake: FakeVercelSandbox;
let snapshotId: string;
let instances: Harness[] = [];
let offer: LoopbackOffer | undefined;
const seenPids = new Set<number>();

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  const started = await startVercelFake(mock);
  ({ fake, snapshotId } = started);
  Object.assign(process.env, started.credentials);
}, 180_000);

afterAll(async () => {
  for (const name of CREDENTIALS) delete process.env[name];
  await fake?.close();
  await mock?.close();
});

afterEach(async () => {
  await offer?.close();
  offer = undefined;
  for (const h of instances) expect(findLeakedTokens(h.evidence)).toEqual([]);
  await Promise.all(instances.map((h) => h.provider.close()));
  await Promise.all(instances.map((h) => h.close()));
  instances = [];
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  await waitUntil(() => [...seenPids].every((pid) => !processAlive(pid)));
  mock.reset();
});

/** A and B: two handlers sharing one store, agent voice on the fake's VMs. */
async function twoInstances(streamLimitMs?: number): Promise<[Harness, Harness]> {
  // A memory store two handlers share stands for Redis: it names itself as a store of its own would,
  // since with the in-memory store a shutting-down instance ends its calls (no other could take them).
  const store: KeyValueStore = { ...createMemoryStore(), kind: "shared-for-test" };
  const handler = {
    sessionStore: store,
    realtime: {
      agentVoice: {
        command: codexExecutable(),
        tools: referenceTools,
        sandbox: "vercel" as const,
        vercelSandbox: { apiUrl: fake.url, snapshotId, vcpus: 1, timeoutMs: 300_000 },
      },
    },
    confirmTool: referenceConfirmTool,
    ...(streamLimitMs ? { responsesProxy: { maxStreamMs: streamLimitMs } } : {}),
  };
  instances = [await startHarness({ sharedMock: mock, handler }), await startHarness({ sharedMock: mock, handler })];
  return instances as [Harness, Harness];
}

/** The same browser (its cookie) on another instance. */
function onInstance(h: Harness, client: TestClient): TestClient {
  const other = new TestClient(h.served.port, h.evidence);
  other.cookie = client.cookie;
  return other;
}

/** A and B sharing one store, the person signed in, a call started on A; `onB` is the same browser on B. */
async function callStartedOnA(streamLimitMs?: number) {
  const [a, b] = await twoInstances(streamLimitMs);
  const onA = a.client();
  await signIn(a, onA);
  const onB = onInstance(b, onA);
  return { a, b, onA, onB, ...(await startLive(onA)) };
}

async function startLive(client: TestClient): Promise<{ sessionId: string; pids: number[] }> {
  offer = await loopbackOffer();
  const reply = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
  expect(reply.status, reply.text).toBe(201);
  const running = fake.stats().sandboxes.filter((entry) => entry.status === "running");
  expect(running).toHaveLength(1);
  const pids = processTree(running[0]!.vmPid!).map(({ pid }) => pid);
  for (const pid of pids) seenPids.add(pid);
  return { sessionId: reply.json<{ sessionId: string }>().sessionId, pids };
}

it("a call started on A, followed on B (which takes it over): events, the confirmation and hang-up; the VM is stopped", async () => {
  const { onB, sessionId, pids } = await callStartedOnA();

  const events = await openEvents(onB, sessionId);
  expect(await events.next((e) => e.type === "session.started")).toMatchObject({ sessionId });
  mock.codex.queueToolCalls([{ name: "save_note", arguments: { text: "buy milk" } }]);
  mock.codex.requestHandoff({ transcript: "Save a note: buy milk." });
  const pending = await events.next((e) => e.type === "tool.pending_confirmation");
  expect(pending).toMatchObject({ tool: "save_note", review: { text: "buy milk" } });
  const confirmed = await onB.post(`/realtime/app-server/${sessionId}/confirm`, { callId: pending.callId, confirmation: { approved: true } });
  expect(confirmed.status, confirmed.text).toBe(200);
  expect(await events.next((e) => e.type === "tool.completed")).toMatchObject({ callId: pending.callId, approved: true });

  expect((await onB.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  // The host (B, since its stream asked the call over) stopped the VM before it answered.
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "closed_by_client" });
  events.close();
  await waitUntil(() => pids.every((pid) => !processAlive(pid)));
});

it("sign-out on B stops the VM of the call A hosts before B answers", async () => {
  const { b, onA, pids } = await callStartedOnA();
  expect(fake.stats().live).toBe(1);
  expect((await onInstance(b, onA).post("/logout")).status).toBe(200);
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  await waitUntil(() => pids.every((pid) => !processAlive(pid)));
});

/** What a server does on SIGTERM (lib/provider-app.ts: closeOnShutdown), then it is gone. */
async function shutDown(h: Harness): Promise<void> {
  await h.provider.close();
  await h.close();
  instances = instances.filter((other) => other !== h);
}

it("A shuts down mid-call: the VM goes on, B takes the call over on the next request; a tool runs, hang-up stops the VM", async () => {
  const { a, onA, onB, sessionId, pids } = await callStartedOnA();
  const first = await openEvents(onA, sessionId);
  await first.next((e) => e.type === "session.started");

  await shutDown(a);
  // A's stream ends without session.closed: the call goes on, the browser opens the next stream.
  expect((await first.rest()).map((e) => e.type)).not.toContain("session.closed");
  expect(fake.stats().live).toBe(1);

  // From the start: the stream's first line (its kept session.started) arrives at once.
  const next = await openEvents(onB, sessionId);
  expect(await next.next((e) => e.type === "session.started")).toMatchObject({ seq: 1, sessionId });
  mock.codex.queueToolCalls([{ name: "save_note", arguments: { text: "after the restart" } }]);
  mock.codex.requestHandoff({ transcript: "Save a note: after the restart." });
  const pending = await next.next((e) => e.type === "tool.pending_confirmation");
  expect(pending.seq).toBeGreaterThan(1);
  const confirmed = await onB.post(`/realtime/app-server/${sessionId}/confirm`, { callId: pending.callId, confirmation: { approved: true } });
  expect(confirmed.status, confirmed.text).toBe(200);
  expect(await next.next((e) => e.type === "tool.completed")).toMatchObject({ callId: pending.callId, approved: true });
  expect((await onB.get("/realtime/app-server/notes")).json<{ notes: { text: string }[] }>().notes.map((note) => note.text)).toEqual(["after the restart"]);

  expect((await onB.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  expect(await next.next((e) => e.type === "session.closed")).toMatchObject({ reason: "closed_by_client" });
  next.close();
  await waitUntil(() => pids.every((pid) => !processAlive(pid)));
});

it("a confirmation waiting when A shuts down is answered through B, and codex gets it", async () => {
  const { a, onA, onB, sessionId } = await callStartedOnA();
  const onHost = await openEvents(onA, sessionId);
  mock.codex.queueToolCalls([{ name: "save_note", arguments: { text: "across the hand-off" } }]);
  mock.codex.requestHandoff({ transcript: "Save a note: across the hand-off." });
  const pending = await onHost.next((e) => e.type === "tool.pending_confirmation");

  await shutDown(a);
  const confirmed = await onB.post(`/realtime/app-server/${sessionId}/confirm`, { callId: pending.callId, confirmation: { approved: true } });
  expect(confirmed.status, confirmed.text).toBe(200);
  expect((await onB.get("/realtime/app-server/notes")).json<{ notes: { text: string }[] }>().notes.map((note) => note.text)).toEqual(["across the hand-off"]);
  // Codex got the answer and finished its turn: its final answer reaches the voice session.
  await mock.waitForRequest(
    (r) =>
      r.method === SIDEBAND_IN &&
      r.path === SIDEBAND_PATH &&
      (r.body as { type?: string }).type === "conversation.handoff.append" &&
      /Final Message":\n\nDone\./.test((r.body as { output_text: string }).output_text),
    20_000,
  );
  expect((await onB.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
});

it("sign-out while the call waits to be taken over ends it and its VM", async () => {
  const { a, b, onA, pids } = await callStartedOnA();
  await shutDown(a);
  expect(fake.stats().live).toBe(1);
  expect((await onInstance(b, onA).post("/logout")).status).toBe(200);
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  await waitUntil(() => pids.every((pid) => !processAlive(pid)));
});

it("the instance serving the event stream hosts the call: B's stream asks it over from A, and A shutting down then leaves B's stream alone", async () => {
  const { a, onB, sessionId, pids } = await callStartedOnA();

  const onStream = await openEvents(onB, sessionId);
  expect(await onStream.next((e) => e.type === "session.started")).toMatchObject({ seq: 1, sessionId });
  // A no longer hosts it: its shutdown has nothing to hand off, and B's stream goes on.
  await shutDown(a);
  mock.codex.queueToolCalls([{ name: "save_note", arguments: { text: "hosted by the stream" } }]);
  mock.codex.requestHandoff({ transcript: "Save a note: hosted by the stream." });
  const pending = await onStream.next((e) => e.type === "tool.pending_confirmation");
  const confirmed = await onB.post(`/realtime/app-server/${sessionId}/confirm`, { callId: pending.callId, confirmation: { approved: true } });
  expect(confirmed.status, confirmed.text).toBe(200);
  expect(await onStream.next((e) => e.type === "tool.completed")).toMatchObject({ callId: pending.callId, approved: true });
  expect((await onB.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  expect(await onStream.next((e) => e.type === "session.closed")).toMatchObject({ reason: "closed_by_client" });
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  await waitUntil(() => pids.every((pid) => !processAlive(pid)));
});

it("a stream reaching its time limit (a function's) hands the call off and ends; the next stream, on the other instance, takes it over", async () => {
  const { onA, onB, sessionId, pids } = await callStartedOnA(1_500);
  const first = await openEvents(onA, sessionId);
  await first.next((e) => e.type === "session.started");
  // Ends by itself at the limit, without session.closed; the call and its VM go on.
  expect((await first.rest()).map((e) => e.type)).not.toContain("session.closed");
  expect(fake.stats().live).toBe(1);

  const next = await openEvents(onB, sessionId);
  await next.next((e) => e.type === "session.started");
  mock.codex.queueToolCalls([{ name: "get_current_time", arguments: {} }]);
  mock.codex.requestHandoff({ transcript: "What time is it?" });
  expect(await next.next((e) => e.type === "tool.completed")).toMatchObject({ tool: "get_current_time" });
  next.close();
  expect((await onB.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  await waitUntil(() => pids.every((pid) => !processAlive(pid)));
});

it("a call that moves A → B → A within a minute is still A's a minute later (the first hand-off's cleanup leaves the new one)", async () => {
  const { onA, onB, sessionId } = await callStartedOnA();
  const toB = await openEvents(onB, sessionId);
  await toB.next((e) => e.type === "session.started");
  const backToA = await openEvents(onA, sessionId);
  await backToA.next((e) => e.type === "session.started");
  // B's stream ended when the call moved back to A.
  expect((await toB.rest()).map((e) => e.type)).not.toContain("session.closed");
  // Past the time a closed (or handed-off) session stays readable: the entry A keeps now is the new one.
  await new Promise((resolve) => setTimeout(resolve, CLOSED_SESSION_RETENTION_MS + 1_000));
  mock.codex.queueToolCalls([{ name: "get_current_time", arguments: {} }]);
  mock.codex.requestHandoff({ transcript: "What time is it?" });
  expect(await backToA.next((e) => e.type === "tool.completed")).toMatchObject({ tool: "get_current_time" });
  backToA.close();
  expect((await onA.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
}, CLOSED_SESSION_RETENTION_MS + 60_000);
