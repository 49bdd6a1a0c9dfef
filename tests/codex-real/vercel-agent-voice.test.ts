/**
 * Agent voice with `sandbox: "vercel"` (LWC_AGENT_SANDBOX=vercel) through the app's HTTP API: each
 * live session's codex runs in a VM of the fake Vercel Sandbox API (mock-upstream/vercel-sandbox/),
 * reached through the real SDK and the session relay, with the real codex. A start (SDP), a tool
 * call that asks for confirmation, the confirmation, hang-up; and a sign-out during a call. Each
 * ends with zero live sandboxes in the fake and none of the processes its VMs ran (by pid).
 */
import { processTree } from "./served-app";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { BUSY_RETRY_AFTER_SECONDS } from "@/lib/agent-voice/defaults";
import { sandboxInUseKey } from "@/lib/agent-voice/cluster/keys";
import { sessionKey } from "@/lib/server/session/store";
import { referenceConfirmTool, referenceTools } from "@/lib/agent-voice/tools";
import { vercelSandboxApi } from "@/lib/agent-voice/vercel-sandbox-api";
import { createMemoryStore } from "@/lib/stores/memory-store";
import type { KeyValueStore } from "@/lib/stores/types";
import { Sandbox } from "@vercel/sandbox";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import type { FakeVercelSandbox } from "@/mock-upstream/vercel-sandbox/server";
import { openEvents } from "@/tests/integration/app-server-harness";
import { findLeakedTokens, signIn, startHarness, type Harness, type HarnessOptions, type TestClient } from "@/tests/integration/harness";
import { processAlive, waitUntil } from "@/test-support/session-relay-process";
import { codexExecutable } from "./codex-binary";
import { loopbackOffer, type LoopbackOffer } from "./loopback-offer";
import { startVercelFake } from "./vercel-fake";

const CREDENTIALS = ["VERCEL_TOKEN", "VERCEL_TEAM_ID", "VERCEL_PROJECT_ID"] as const;
let mock: MockUpstream;
let fake: FakeVercelSandbox;
let snapshotId: string;
let h: Harness | undefined;
let offer: LoopbackOffer | undefined;
/** Host pids of every VM and every process a VM ran, seen while it ran: none may be left. */
const seenPids = new Set<number>();

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  const started = await startVercelFake(mock);
  ({ fake, snapshotId } = started);
  // The backend takes its credentials from the environment, as on a server (VERCEL_TOKEN + team + project).
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
  if (h) expect(findLeakedTokens(h.evidence)).toEqual([]);
  await h?.close();
  h = undefined;
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  await waitUntil(() => [...seenPids].every((pid) => !processAlive(pid)));
  mock.reset();
});

type AppOptions = { withoutSnapshot?: boolean; snapshotId?: string; idleTimeoutMs?: number; loginCheckIntervalMs?: number; store?: KeyValueStore };

/** The app's handler options with agent voice on `vercel` against the fake. */
function appHandler(options: AppOptions): HarnessOptions["handler"] {
  return {
    ...(options.store ? { sessionStore: options.store } : {}),
    realtime: {
      agentVoice: {
        // The VM runs its snapshot's codex; the command names the same version here.
        command: codexExecutable(),
        tools: referenceTools,
        sandbox: "vercel",
        ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
        ...(options.loginCheckIntervalMs ? { loginCheckIntervalMs: options.loginCheckIntervalMs } : {}),
        vercelSandbox: { apiUrl: fake.url, snapshotId: options.withoutSnapshot ? undefined : (options.snapshotId ?? snapshotId), vcpus: 1, timeoutMs: 300_000 },
      },
    },
    confirmTool: referenceConfirmTool,
  };
}

async function startApp(options: AppOptions = {}): Promise<TestClient> {
  h = await startHarness({ sharedMock: mock, handler: appHandler(options) });
  const client = h.client();
  await signIn(h, client);
  return client;
}

/** Starts a live session; the one running sandbox's VM processes (codex among them), remembered for the after-each check. */
async function startLive(client: TestClient): Promise<{ sessionId: string; pids: number[] }> {
  offer = await loopbackOffer();
  const reply = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
  expect(reply.status, reply.text).toBe(201);
  expect(reply.json<{ sdp: string }>().sdp).toMatch(/^v=0\r\n/);
  // No warm spare with this backend: exactly the one VM of this session.
  const running = fake.stats().sandboxes.filter((entry) => entry.status === "running");
  expect(running).toHaveLength(1);
  expect(running[0]!.tags).toMatchObject({ app: "lwc-agent-voice" });
  const tree = processTree(running[0]!.vmPid!);
  for (const { pid } of tree) seenPids.add(pid);
  expect(tree.filter((entry) => entry.cmdline.includes("app-server")).length).toBeGreaterThanOrEqual(1);
  return { sessionId: reply.json<{ sessionId: string }>().sessionId, pids: tree.map(({ pid }) => pid) };
}

it("status says vercel; start, a tool call that asks for confirmation, the confirmation, hang-up: zero live sandboxes, no process left", async () => {
  const client = await startApp();
  const status = await client.get("/realtime/app-server/status");
  expect(status.json()).toMatchObject({ available: true, sandbox: "vercel" });

  const { sessionId, pids } = await startLive(client);
  const events = await openEvents(client, sessionId);
  mock.codex.queueToolCalls([{ name: "save_note", arguments: { text: "buy milk" } }]);
  mock.codex.requestHandoff({ transcript: "Save a note: buy milk." });

  const pending = await events.next((e) => e.type === "tool.pending_confirmation");
  expect(pending).toMatchObject({ tool: "save_note", review: { text: "buy milk" } });
  const confirm = await client.post(`/realtime/app-server/${sessionId}/confirm`, { callId: pending.callId, confirmation: { approved: true } });
  expect(confirm.status, confirm.text).toBe(200);
  expect(await events.next((e) => e.type === "tool.completed")).toMatchObject({ tool: "save_note", callId: pending.callId, approved: true });
  expect((await client.get("/realtime/app-server/notes")).json<{ notes: { text: string }[] }>().notes.map((note) => note.text)).toEqual(["buy milk"]);

  events.close();
  expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  await waitUntil(() => pids.every((pid) => !processAlive(pid)));
});

it("sign-out during a call ends its sandbox: zero live sandboxes, no process left", async () => {
  const client = await startApp();
  const { pids } = await startLive(client);
  expect(fake.stats().live).toBe(1);
  expect((await client.post("/logout")).status).toBe(200);
  await waitUntil(() => fake.stats().live === 0);
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  await waitUntil(() => pids.every((pid) => !processAlive(pid)));
});

it("the idle timeout ends a silent call and its sandbox: zero live sandboxes, no process left", async () => {
  const client = await startApp({ idleTimeoutMs: 1_500 });
  const { sessionId, pids } = await startLive(client);
  const events = await openEvents(client, sessionId);
  expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "idle_timeout" });
  events.close();
  await waitUntil(() => fake.stats().live === 0);
  await waitUntil(() => pids.every((pid) => !processAlive(pid)));
});

it("the login expiring during a call (gone from the store) ends it and its sandbox: zero live sandboxes, no process left", async () => {
  const client = await startApp({ loginCheckIntervalMs: 50 });
  const { sessionId, pids } = await startLive(client);
  const events = await openEvents(client, sessionId);
  await events.next((e) => e.type === "session.started");
  await h!.store.delete(sessionKey(client.cookie!.slice(0, client.cookie!.lastIndexOf("."))));
  expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "login_expired" });
  events.close();
  await waitUntil(() => fake.stats().live === 0);
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  await waitUntil(() => pids.every((pid) => !processAlive(pid)));
});

it("the server shutting down during a call ends its sandbox: zero live sandboxes, no process left", async () => {
  const client = await startApp();
  const { pids } = await startLive(client);
  // What the server runs on SIGTERM (lib/provider-app.ts: closeOnShutdown).
  await h!.provider.close();
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  await waitUntil(() => pids.every((pid) => !processAlive(pid)));
});

it("no snapshot configured: agent voice is unavailable, a start answers 503 agent_sandbox_unavailable and creates no sandbox", async () => {
  const client = await startApp({ withoutSnapshot: true });
  const known = fake.stats().sandboxes.length;
  expect((await client.get("/realtime/app-server/status")).json()).toMatchObject({ available: false, sandbox: "vercel" });
  offer = await loopbackOffer();
  const reply = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
  expect(reply.status, reply.text).toBe(503);
  expect(reply.json()).toMatchObject({ error: "agent_sandbox_unavailable" });
  expect(fake.stats().sandboxes).toHaveLength(known);
  expect(h!.evidence.logs.some((line) => line.level === "error" && line.message.includes("LWC_VERCEL_SANDBOX_SNAPSHOT is not set"))).toBe(true);
});

it("a snapshot that does not exist: 503 agent_sandbox_unavailable; nothing left running", async () => {
  const client = await startApp({ snapshotId: "snap_missing" });
  offer = await loopbackOffer();
  const missing = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
  expect(missing.status, missing.text).toBe(503);
  expect(missing.json()).toMatchObject({ error: "agent_sandbox_unavailable" });
  expect(h!.evidence.logs.some((line) => line.level === "error" && line.message.includes("snapshot does not exist"))).toBe(true);
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
});

/** The start's answer, and that the platform's refusal left no sandbox and no word of its address or token. */
async function refusedStart(client: TestClient) {
  offer = await loopbackOffer();
  const refused = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  for (const text of [refused.text, ...h!.evidence.logs.map((line) => line.message)]) {
    expect(text).not.toContain(fake.token);
    expect(text).not.toContain(fake.url);
  }
  return refused;
}

it("a create the Sandbox API refuses (429) is the server's capacity: 503 realtime_busy with the API's Retry-After; nothing left running", async () => {
  const client = await startApp();
  // Retry-After past 20 s: the SDK gives up at once, with the API's answer.
  await fetch(`${fake.url}/__fake/fail-create`, { method: "POST", body: JSON.stringify({ status: 429, times: 1, retryAfter: 60 }) });
  const refused = await refusedStart(client);
  expect(refused.status, refused.text).toBe(503);
  expect(refused.headers.get("retry-after")).toBe("60");
  expect(refused.json()).toEqual({
    error: "realtime_busy",
    message: "Vercel Sandbox refused to start another sandbox now. Try again shortly.",
    retryAfterSeconds: 60,
  });
  expect(h!.evidence.logs.some((line) => line.level === "warn" && line.message.includes("the Sandbox API answered 429"))).toBe(true);
});

it("a 429 without Retry-After: 503 realtime_busy with the server's own retry-after; the next start works", async () => {
  const client = await startApp();
  // The SDK tries a create three times (two retries) before it gives the 429 back.
  await fetch(`${fake.url}/__fake/fail-create`, { method: "POST", body: JSON.stringify({ status: 429, times: 3 }) });
  const refused = await refusedStart(client);
  expect(refused.status, refused.text).toBe(503);
  expect(refused.headers.get("retry-after")).toBe(String(BUSY_RETRY_AFTER_SECONDS));
  expect(refused.json()).toMatchObject({ error: "realtime_busy", retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS });
  // Every injected refusal was used up by those tries: the next start gets its sandbox.
  await offer?.close();
  const { sessionId } = await startLive(client);
  expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
});

/** A sandbox of the app's, as another (or a killed) server made it; its VM's processes remembered for the after-each check. */
async function appSandbox(options: { ageMs?: number } = {}): Promise<string> {
  const api = vercelSandboxApi(fake.url, process.env);
  const { name } = await Sandbox.create({ ...api, timeout: 300_000, persistent: false, networkPolicy: "deny-all", tags: { app: "lwc-agent-voice", deploy: "old" } });
  const vmPid = fake.stats().sandboxes.find((entry) => entry.name === name)!.vmPid!;
  for (const { pid } of processTree(vmPid)) seenPids.add(pid);
  if (options.ageMs) await backdate(name, options.ageMs);
  return name;
}

const backdate = (name: string, ms: number) => fetch(`${fake.url}/__fake/sandboxes/${name}/backdate`, { method: "POST", body: JSON.stringify({ ms }) });
const statusOf = (name: string) => fake.stats().sandboxes.find((entry) => entry.name === name)?.status;
const sweepLines = () => h!.evidence.logs.filter((line) => line.message.includes("start-up sweep"));

/** Ends what a sweep test left running on purpose. */
async function stopLeft(names: string[]): Promise<void> {
  const api = vercelSandboxApi(fake.url, process.env);
  for (const name of names) if (statusOf(name) === "running") await (await Sandbox.get({ ...api, name, resume: false })).stop();
}

it("at start-up, the app's orphaned sandboxes are stopped; one a live session still uses (its in-use key in the store) is left", async () => {
  const orphan = await appSandbox({ ageMs: 10 * 60_000 });
  const inUse = await appSandbox({ ageMs: 10 * 60_000 });
  // Another instance's live session holds this one.
  const store = createMemoryStore();
  await store.set(sandboxInUseKey(inUse), "another-instances-session", 60_000);
  try {
    await startApp({ store });
    await waitUntil(() => sweepLines().length > 0);
    expect(sweepLines()).toEqual([{ level: "info", message: expect.stringMatching(/start-up sweep stopped 1 Vercel sandbox\b/) }]);
    expect(statusOf(orphan)).toBe("stopped");
    expect(statusOf(inUse)).toBe("running");
    expect(fake.stats().live).toBe(1);
  } finally {
    await stopLeft([orphan, inUse]);
  }
});

it("another instance's start-up sweep leaves the sandbox of a live session this one hosts (the session's in-use key); the call goes on", async () => {
  const store = createMemoryStore();
  const client = await startApp({ store });
  await waitUntil(() => sweepLines().length > 0);
  const { sessionId } = await startLive(client);
  const [live] = fake.stats().sandboxes.filter((entry) => entry.status === "running");
  // Old enough that only its in-use key keeps it.
  await backdate(live!.name, 10 * 60_000);
  const second = await startHarness({ sharedMock: mock, handler: appHandler({ store }) });
  try {
    const secondSweep = () => second.evidence.logs.filter((line) => line.message.includes("start-up sweep"));
    await waitUntil(() => secondSweep().length > 0);
    expect(secondSweep()).toEqual([{ level: "info", message: expect.stringMatching(/start-up sweep stopped 0 Vercel sandboxes\b/) }]);
    expect(statusOf(live!.name)).toBe("running");
  } finally {
    await second.close();
  }
  const events = await openEvents(client, sessionId);
  mock.codex.queueToolCalls([{ name: "get_current_time", arguments: {} }]);
  mock.codex.requestHandoff({ transcript: "What time is it?" });
  expect(await events.next((e) => e.type === "tool.completed")).toMatchObject({ tool: "get_current_time" });
  events.close();
  expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
});

it("at start-up, a sandbox created moments ago is left (another instance may still be starting it, before its in-use key)", async () => {
  const orphan = await appSandbox({ ageMs: 10 * 60_000 });
  const starting = await appSandbox();
  try {
    await startApp();
    await waitUntil(() => sweepLines().length > 0);
    expect(sweepLines()).toEqual([{ level: "info", message: expect.stringMatching(/start-up sweep stopped 1 Vercel sandbox\b/) }]);
    expect(statusOf(orphan)).toBe("stopped");
    expect(statusOf(starting)).toBe("running");
  } finally {
    await stopLeft([orphan, starting]);
  }
});

it("a start-up sweep that fails is one warning without a token, and stops nothing; the app serves on", async () => {
  const orphan = await appSandbox({ ageMs: 10 * 60_000 });
  const wrongToken = "wrong-vercel-token-for-the-sweep-test";
  process.env.VERCEL_TOKEN = wrongToken;
  try {
    const client = await startApp();
    await waitUntil(() => sweepLines().length > 0);
    expect(sweepLines()).toEqual([
      {
        level: "warn",
        message: expect.stringContaining("the start-up sweep of Vercel sandboxes failed (sweep: the Sandbox API answered 403 forbidden)"),
      },
    ]);
    for (const line of h!.evidence.logs) expect(line.message).not.toContain(wrongToken);
    expect(statusOf(orphan)).toBe("running");
    expect((await client.get("/realtime/app-server/status")).status).toBe(200);
  } finally {
    process.env.VERCEL_TOKEN = fake.token;
    await stopLeft([orphan]);
  }
});
