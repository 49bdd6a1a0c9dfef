/**
 * Agent voice lifecycle: one live process per login, and every way a live session ends (DELETE,
 * a new start, logout, the login expiring, idle and absolute limits, the process dying), each
 * leaving no process behind (checked by pid) and the private folder removed.
 */
import { stat } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { sessionKey } from "@/lib/server/session/store";
import { isAlive, openEvents, startAgentHarness, waitForExit, finishAgentHarnessAfterEach, type AgentHarness } from "./app-server-harness";

let h: AgentHarness | undefined;
finishAgentHarnessAfterEach(
  () => h,
  () => (h = undefined),
);

async function homeOf(pid: number): Promise<string> {
  const spawned = (await h!.fake.log()).find((entry) => entry.type === "spawned" && entry.pid === pid);
  return spawned!.env!.HOME!;
}

describe("closing a live session", () => {
  it("DELETE stops the realtime thread, ends stdin and the process exits; a second DELETE still answers", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const pid = await h.livePid();
    const home = await homeOf(pid);
    const reply = await client.request("DELETE", `/realtime/app-server/${sessionId}`);
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({ sessionId, status: "closed" });
    expect(isAlive(pid)).toBe(false);
    await expect(stat(home)).rejects.toMatchObject({ code: "ENOENT" });
    const log = await h.fake.log();
    const order = log.filter((e) => e.pid === pid && (e.message?.method === "thread/realtime/stop" || e.type === "stdin closed"));
    expect(order.map((e) => e.message?.method ?? e.type)).toEqual(["thread/realtime/stop", "stdin closed"]);
    expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
    // A late subscriber still reads the whole story, and the stream ends.
    const late = await openEvents(client, sessionId);
    expect((await late.rest()).map((e) => e.type)).toEqual(["session.started", "session.closed"]);
  });

  it("escalates to SIGTERM when the process ignores the end of stdin, and to SIGKILL when it ignores SIGTERM", async () => {
    h = await startAgentHarness({ script: { ignoreStdinEnd: true } });
    const client = await h.signedIn();
    const first = await h.startLive(client);
    const firstPid = await h.livePid(0);
    await client.request("DELETE", `/realtime/app-server/${first.sessionId}`);
    expect(isAlive(firstPid)).toBe(false);

    await h.fake.setScript({ ignoreStdinEnd: true, ignoreSigterm: true });
    const second = await h.startLive(client);
    const secondPid = await h.livePid(1);
    await client.request("DELETE", `/realtime/app-server/${second.sessionId}`);
    expect(isAlive(secondPid)).toBe(false);
    const log = await h.fake.log();
    expect(log.some((e) => e.pid === secondPid && e.type === "ignored SIGTERM")).toBe(true);
  }, 20_000);

  it("a new start of the same login closes the older live session", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const first = await h.startLive(client);
    const firstPid = await h.livePid(0);
    const firstEvents = await openEvents(client, first.sessionId);
    const second = await h.startLive(client);
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(await firstEvents.next((e) => e.type === "session.closed")).toMatchObject({ reason: "replaced" });
    expect(isAlive(firstPid)).toBe(false);
    const secondPid = await h.livePid(1);
    expect(isAlive(secondPid)).toBe(true);
    expect((await client.request("DELETE", `/realtime/app-server/${second.sessionId}`)).status).toBe(200);
    await waitForExit(secondPid);
  });

  it("another login's live session is not touched by a start, and not visible (404)", async () => {
    h = await startAgentHarness();
    const alice = await h.signedIn();
    const bob = await h.signedIn();
    const a = await h.startLive(alice);
    const b = await h.startLive(bob);
    const aPid = await h.livePid(0);
    expect(isAlive(aPid)).toBe(true);
    for (const [method, path] of [
      ["GET", `/realtime/app-server/${a.sessionId}/events`],
      ["POST", `/realtime/app-server/${a.sessionId}/confirm`],
      ["DELETE", `/realtime/app-server/${a.sessionId}`],
    ] as const) {
      const reply = await bob.request(method, path, method === "POST" ? { headers: { "content-type": "application/json" }, body: JSON.stringify({ callId: "x", confirmation: { approved: true } }) } : {});
      expect(reply.status).toBe(404);
      expect(reply.json()).toEqual({ error: "realtime_session_not_found" });
    }
    expect(isAlive(aPid)).toBe(true);
    await alice.request("DELETE", `/realtime/app-server/${a.sessionId}`);
    await bob.request("DELETE", `/realtime/app-server/${b.sessionId}`);
    await waitForExit(aPid);
    await waitForExit(await h.livePid(1));
  });

  it("logout closes the login's live session", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const pid = await h.livePid();
    const events = await openEvents(client, sessionId);
    await events.next((e) => e.type === "session.started");
    expect((await client.post("/logout")).status).toBe(200);
    expect(isAlive(pid)).toBe(false);
    expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "logged_out" });
    expect((await client.get(`/realtime/app-server/${sessionId}/events`)).status).toBe(401);
  });

  it("closes when the login is gone from the store (expired elsewhere)", async () => {
    h = await startAgentHarness({ agentVoice: { loginCheckIntervalMs: 50 } });
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const pid = await h.livePid();
    const events = await openEvents(client, sessionId);
    await h.store.delete(sessionKey(client.cookie!.slice(0, client.cookie!.lastIndexOf("."))));
    expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "login_expired" });
    await waitForExit(pid);
  });

  it("/status finding the refresh token dead closes the login's live process at once (not at the next periodic check)", async () => {
    // Access tokens inside the refresh threshold: /status refreshes, and the refresh finds the token dead.
    h = await startAgentHarness({ mock: { accessTokenTtlSeconds: 60 } });
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const pid = await h.livePid();
    const events = await openEvents(client, sessionId);
    await events.next((e) => e.type === "session.started");
    h.mock.addFault({ fault: "dead_refresh_token" });
    const status = await client.get("/status");
    expect(status.json()).toMatchObject({ status: "expired", error: "refresh_token_invalid" });
    expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "login_expired" });
    // The periodic login check runs every 30 s; this is well before it.
    await waitForExit(pid, 5_000);
  });

  it("closes after the idle limit", async () => {
    h = await startAgentHarness({ agentVoice: { idleTimeoutMs: 300 } });
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const pid = await h.livePid();
    const events = await openEvents(client, sessionId);
    expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "idle_timeout" });
    await waitForExit(pid);
  });

  it("closes after the absolute limit even while active", async () => {
    h = await startAgentHarness({ agentVoice: { maxDurationMs: 500, keepaliveIntervalMs: 50 } });
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const pid = await h.livePid();
    const events = await openEvents(client, sessionId);
    // Keep it busy: handoffs are activity.
    const busy = setInterval(() => void h!.fake.send({ do: "handoff", transcript: "still here" }), 50);
    try {
      expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "max_duration" });
    } finally {
      clearInterval(busy);
    }
    await waitForExit(pid);
  });

  it("reports a process that dies: error, then session.closed, and nothing left behind", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const pid = await h.livePid();
    const home = await homeOf(pid);
    const events = await openEvents(client, sessionId);
    await h.fake.send({ do: "exit", code: 7 });
    expect(await events.next((e) => e.type === "error")).toMatchObject({ message: expect.any(String) });
    expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "process_exited" });
    await waitForExit(pid);
    await expect(stat(home)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("the voice call ending upstream closes the live session", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const pid = await h.livePid();
    const events = await openEvents(client, sessionId);
    await h.fake.send({ do: "realtime_closed", reason: "transport_closed" });
    expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "realtime_transport_closed" });
    await waitForExit(pid);
  });
});

describe("the warm process", () => {
  it("keeps one initialised, signed-out process ready after a start and uses it for the next", async () => {
    h = await startAgentHarness({ agentVoice: { keepWarmProcess: true } });
    const client = await h.signedIn();
    const first = await h.startLive(client);
    const livePid = await h.livePid(0);
    const spare = await h.fake.waitFor((log) => {
      const pids = log.filter((e) => e.type === "spawned").map((e) => e.pid);
      return pids.find((pid) => pid !== livePid && log.some((e) => e.pid === pid && e.message?.method === "initialized"));
    }, "an initialised spare process");
    const log = await h.fake.log();
    expect(log.some((e) => e.pid === spare && e.message?.method === "account/login/start")).toBe(false);
    await client.request("DELETE", `/realtime/app-server/${first.sessionId}`);
    const second = await h.startLive(client);
    expect(await h.livePid(1)).toBe(spare);
    await client.request("DELETE", `/realtime/app-server/${second.sessionId}`);
    await waitForExit(spare);
    // The next spare lives as long as the handler; end it by pid, as the server's exit hook would.
    const third = await h.fake.waitFor((l) => {
      const pids = l.filter((e) => e.type === "spawned").map((e) => e.pid);
      return pids.length === 3 ? pids[2] : undefined;
    }, "the next spare process");
    const thirdHome = await homeOf(third);
    process.kill(-third, "SIGTERM");
    await waitForExit(third);
    // Killed from outside: its private folder is removed all the same.
    await expect.poll(() => stat(thirdHome).then(() => "exists", (error: NodeJS.ErrnoException) => error.code)).toBe("ENOENT");
  });
});
