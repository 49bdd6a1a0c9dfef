/**
 * A 6-minute agent-voice call on the Vercel Sandbox backend, through a round-robin proxy over two
 * `next start` instances sharing Redis, each instance restarted (SIGTERM, then started again) once
 * during the call. The codex of the call runs, the real binary, in a VM of the fake Sandbox API
 * (mock-upstream/vercel-sandbox/), which outlives the instances. The browser's own event-stream code
 * (lib/client/agent-voice.ts) follows it. The call keeps working: a tool runs, a confirmation waiting
 * across a restart is answered, hang-up stops the VM, and the fake counts zero live sandboxes after.
 * Needs a production build and the pinned codex (scripts/ensure-codex.sh).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { agentVoiceClient, type AgentEvent } from "@/lib/client/agent-voice";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import type { FakeVercelSandbox } from "@/mock-upstream/vercel-sandbox/server";
import { startRoundRobinProxy, type RoundRobinProxy } from "@/test-support/round-robin-proxy";
import { processAlive, waitUntil } from "@/test-support/session-relay-process";
import { loopbackOffer, type LoopbackOffer } from "@/tests/codex-real/loopback-offer";
import { processTree } from "@/tests/codex-real/served-app";
import { startVercelFake } from "@/tests/codex-real/vercel-fake";
import { startCluster, type Cluster } from "./cluster";
import { SessionClient } from "./session-client";

/** How long the call lasts: what the test is about, not a wait for something to happen. */
const CALL_MS = 6 * 60_000;
const ACCOUNT = { accountId: "acct_churn", email: "churn@example.com" };
let mock: MockUpstream;
let fake: FakeVercelSandbox;
let cluster: Cluster;
let proxy: RoundRobinProxy;
let offer: LoopbackOffer | undefined;

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  const started = await startVercelFake(mock);
  fake = started.fake;
  const { snapshotId, credentials } = started;
  cluster = await startCluster(
    {
      LWC_CODEX_COMMAND: "codex",
      LWC_AGENT_SANDBOX: "vercel",
      LWC_VERCEL_SANDBOX_API_URL: fake.url,
      LWC_VERCEL_SANDBOX_SNAPSHOT: snapshotId,
      ...credentials,
    },
    { mock },
  );
  // A load balancer sends nothing to an instance that is restarting.
  proxy = await startRoundRobinProxy([cluster.a.url, cluster.b.url], 0, { failover: true });
}, 240_000);

afterAll(async () => {
  await offer?.close();
  await proxy?.close();
  await cluster?.stop();
  await fake?.close();
  await mock?.close();
});

/** The events the browser's code hears, and a wait for the next one that matches. */
function eventLog() {
  const seen: AgentEvent[] = [];
  const waiters: { match: (event: AgentEvent) => boolean; resolve: (event: AgentEvent) => void }[] = [];
  let cursor = 0;
  return {
    seen,
    push(event: AgentEvent) {
      seen.push(event);
      for (const waiter of [...waiters]) {
        if (waiter.match(event)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      }
    },
    /** The first event after the last one returned that matches. */
    next(match: (event: AgentEvent) => boolean): Promise<AgentEvent> {
      for (; cursor < seen.length; cursor += 1) {
        if (match(seen[cursor]!)) return Promise.resolve(seen[cursor++]!);
      }
      return new Promise((resolve) =>
        waiters.push({
          match,
          resolve: (event) => {
            cursor = seen.length;
            resolve(event);
          },
        }),
      );
    },
  };
}

it(
  "a 6-minute call over two instances, each restarted once: a tool runs, a confirmation is answered, hang-up stops the VM, zero live sandboxes after",
  async () => {
    const person = new SessionClient();
    await person.signIn(proxy.url, mock, ACCOUNT);
    // The browser's code, its cookie sent with each request, through the proxy.
    const voice = agentVoiceClient("/api/provider", (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("cookie", `lwc_session=${person.cookie}`);
      return fetch(`${proxy.url}${String(input)}`, { ...init, headers });
    });
    const began = Date.now();
    const callTime = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, began + ms - Date.now())));

    offer = await loopbackOffer();
    // The snapshot's own sandbox came before.
    const sandboxesBefore = fake.stats().sandboxes.length;
    const { sessionId, sdp } = await voice.start(offer.sdp, { voice: "cove" }, new AbortController().signal);
    expect(sdp).toMatch(/^v=0\r\n/);
    expect(fake.stats().live).toBe(1);
    const vm = fake.stats().sandboxes.find((entry) => entry.status === "running")!;
    const vmPids = processTree(vm.vmPid!).map(({ pid }) => pid);

    const events = eventLog();
    const stopFollowing = new AbortController();
    const following = voice.follow(sessionId, (event) => events.push(event), stopFollowing.signal);
    expect(await events.next((e) => e.type === "session.started")).toMatchObject({ sessionId });

    // Minute 1: instance A restarts. The call goes on in its VM; the browser's stream moves to B.
    await callTime(CALL_MS / 6);
    await cluster.a.restart();

    // A tool that runs at once.
    mock.codex.queueToolCalls([{ name: "get_current_time", arguments: {} }]);
    mock.codex.requestHandoff({ transcript: "What time is it?" });
    expect(await events.next((e) => e.type === "tool.completed")).toMatchObject({ tool: "get_current_time" });

    // Minute 2.5: a tool that waits for the person; minute 3: B restarts while it waits.
    await callTime((CALL_MS * 5) / 12);
    mock.codex.queueToolCalls([{ name: "save_note", arguments: { text: "said during the churn" } }]);
    mock.codex.requestHandoff({ transcript: "Save a note: said during the churn." });
    const pending = await events.next((e) => e.type === "tool.pending_confirmation");
    expect(pending).toMatchObject({ tool: "save_note", review: { text: "said during the churn" } });
    await callTime(CALL_MS / 2);
    await cluster.b.restart();
    await voice.confirm(sessionId, pending.callId!, true);
    expect(await events.next((e) => e.type === "tool.completed")).toMatchObject({ callId: pending.callId, approved: true });
    expect(await voice.notes()).toMatchObject([{ text: "said during the churn" }]);

    // The rest of the six minutes, then hang-up.
    await callTime(CALL_MS);
    expect(fake.stats().live).toBe(1);
    const hungUp = await person.json(proxy.url, `/realtime/app-server/${sessionId}`, { method: "DELETE" });
    expect(hungUp).toMatchObject({ status: 200, body: { sessionId, status: "closed" } });
    expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "closed_by_client" });
    await following;
    expect(Date.now() - began).toBeGreaterThanOrEqual(CALL_MS);

    // One VM the whole call, stopped at hang-up; none of its processes left.
    expect(fake.stats().sandboxes).toHaveLength(sandboxesBefore + 1);
    expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
    await waitUntil(() => vmPids.every((pid) => !processAlive(pid)));
    // The events arrived in order, each once, across both restarts.
    const seqs = events.seen.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
  },
  CALL_MS + 4 * 60_000,
);
