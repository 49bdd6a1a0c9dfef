/**
 * Agent voice on two `next start` instances sharing Redis, behind a round-robin proxy, with the real
 * codex in bubblewrap: the start lands on one instance, and its events, the confirmation and the
 * hang-up on the other, and they work. A host that dies (SIGKILL) ends its call cleanly: the stream
 * the other instance serves gets `session.closed` (`instance_gone`) and no codex process is left.
 * Counted by pid. Needs a production build and the pinned codex (scripts/ensure-codex.sh).
 */
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { startRoundRobinProxy, type RoundRobinProxy } from "@/test-support/round-robin-proxy";
import { processAlive, waitUntil } from "@/test-support/session-relay-process";
import { codexExecutable, codexReadOnlyPaths } from "@/tests/codex-real/codex-binary";
import { loopbackOffer, type LoopbackOffer } from "@/tests/codex-real/loopback-offer";
import { descendantsOf } from "@/tests/codex-real/served-app";
import { startCluster, type Cluster } from "./cluster";
import { SessionClient } from "./session-client";

const ACCOUNT = { accountId: "acct_instances", email: "instances@example.com" };
let cluster: Cluster;
let proxy: RoundRobinProxy;
let offer: LoopbackOffer | undefined;
/** Every codex and bwrap process either instance ran, seen while it ran: none may be left. */
const seen = new Set<number>();

beforeAll(async () => {
  const codex = codexExecutable();
  cluster = await startCluster({
    LWC_CODEX_COMMAND: codex,
    LWC_AGENT_SANDBOX: "bwrap",
    LWC_AGENT_SANDBOX_READONLY_PATHS: codexReadOnlyPaths(codex).join(":"),
  });
  proxy = await startRoundRobinProxy([cluster.a.url, cluster.b.url]);
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  await cluster?.stop();
  await waitUntil(() => [...seen].every((pid) => !processAlive(pid)));
});

afterEach(async () => {
  await offer?.close();
  offer = undefined;
  cluster.mock.reset();
});

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/** The instance's codex app-server processes (bwrap and codex), remembered for the final check. */
function agentProcesses(instance: "a" | "b"): number[] {
  const root = cluster[instance].pid();
  const found = root === undefined ? [] : descendantsOf(root).filter((pid) => cmdline(pid).includes("app-server"));
  for (const pid of found) seen.add(pid);
  return found;
}

/** Which instance the proxy sends the next request to (round robin: a, b, a, …). */
function nextInstance(): "a" | "b" {
  const [a, b] = proxy.counts();
  return a! === b! ? "a" : "b";
}

/** Makes the proxy's next request go to `instance` (a health check takes the other turn). */
async function nextGoesTo(instance: "a" | "b"): Promise<void> {
  if (nextInstance() !== instance) expect((await fetch(`${proxy.url}/api/health`)).status).toBe(200);
  expect(nextInstance()).toBe(instance);
}

async function signedInClient(): Promise<SessionClient> {
  const client = new SessionClient();
  await client.signIn(proxy.url, cluster.mock, ACCOUNT);
  return client;
}

async function startOn(instance: "a" | "b", client: SessionClient): Promise<string> {
  offer = await loopbackOffer();
  await nextGoesTo(instance);
  const started = await client.json<{ sessionId: string; sdp: string }>(proxy.url, "/realtime/app-server", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ sdp: offer.sdp, session: { voice: "cove" } }),
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  expect(started.body.sdp).toMatch(/^v=0\r\n/);
  return started.body.sessionId;
}

/** An NDJSON event stream through the proxy; `next` waits for the first event that matches. */
async function openEvents(client: SessionClient, sessionId: string) {
  const controller = new AbortController();
  const response = await client.request(proxy.url, `/realtime/app-server/${sessionId}/events`, { signal: controller.signal });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const lines: Record<string, unknown>[] = [];
  let buffered = "";
  return {
    async next(match: (event: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
      for (;;) {
        const index = lines.findIndex(match);
        if (index >= 0) return lines.splice(0, index + 1).at(-1)!;
        const { done, value } = await reader.read();
        if (done) throw new Error("the event stream ended");
        buffered += decoder.decode(value, { stream: true });
        for (let newline = buffered.indexOf("\n"); newline >= 0; newline = buffered.indexOf("\n")) {
          lines.push(JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>);
          buffered = buffered.slice(newline + 1);
        }
      }
    },
    close: () => controller.abort(),
  };
}

it("start on A; events, a confirmation and hang-up on B: they work, and the call's codex ends", async () => {
  const client = await signedInClient();
  const sessionId = await startOn("a", client);
  const host = agentProcesses("a");
  expect(host.length).toBeGreaterThanOrEqual(1);
  expect(agentProcesses("b")).toEqual([]);

  await nextGoesTo("b");
  const events = await openEvents(client, sessionId);
  expect(await events.next((e) => e.type === "session.started")).toMatchObject({ sessionId });
  cluster.mock.codex.queueToolCalls([{ name: "save_note", arguments: { text: "buy milk" } }]);
  cluster.mock.codex.requestHandoff({ transcript: "Save a note: buy milk." });
  const pending = await events.next((e) => e.type === "tool.pending_confirmation");
  expect(pending).toMatchObject({ tool: "save_note", review: { text: "buy milk" } });

  await nextGoesTo("b");
  const confirmed = await client.json(proxy.url, `/realtime/app-server/${sessionId}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ callId: pending.callId, confirmation: { approved: true } }),
  });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  expect(await events.next((e) => e.type === "tool.completed")).toMatchObject({ callId: pending.callId, approved: true });

  await nextGoesTo("b");
  const hungUp = await client.json(proxy.url, `/realtime/app-server/${sessionId}`, { method: "DELETE" });
  expect(hungUp).toMatchObject({ status: 200, body: { sessionId, status: "closed" } });
  expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "closed_by_client" });
  events.close();
  // The call's codex is gone; what is left on A is at most its one idle spare (bwrap and codex).
  const hostNow = agentProcesses("a");
  expect(hostNow.filter((pid) => host.includes(pid) && processAlive(pid)).length).toBeLessThan(host.length);
  expect(agentProcesses("b")).toEqual([]);
});

it("the host dying mid-call ends it cleanly: B's stream gets instance_gone, no codex process of A is left", async () => {
  const client = await signedInClient();
  const sessionId = await startOn("a", client);
  const host = agentProcesses("a");
  await nextGoesTo("b");
  const events = await openEvents(client, sessionId);
  await events.next((e) => e.type === "session.started");

  await cluster.a.stop({ crash: true });
  // bwrap runs each codex with --die-with-parent: the kernel ends them with the server.
  await waitUntil(() => host.every((pid) => !processAlive(pid)));
  // Nobody renews the record any more: once it lapses, B's stream says so and ends.
  expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "instance_gone" });
  events.close();
  await cluster.a.restart();
});
