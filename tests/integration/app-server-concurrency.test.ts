/**
 * Concurrent agent-voice starts, with the warm spare on (as production runs): starts of one login
 * are served one after another, a start that a newer one overtook answers 409
 * `realtime_start_superseded`, and every process the server made but did not hand out is ended.
 * Counted by pid: at most one live process per login plus the one spare.
 */
import { describe, expect, it } from "vitest";
import type { FakeLogEntry } from "@/test-support/fake-app-server/control";
import { signIn } from "./harness";
import { isAlive, OFFER_SDP, startAgentHarness, finishAgentHarnessAfterEach, type AgentHarness } from "./app-server-harness";

let h: AgentHarness | undefined;
finishAgentHarnessAfterEach(
  () => h,
  () => (h = undefined),
);

const startBody = { sdp: OFFER_SDP, session: { voice: "cove" } };

/** Pids the fake saw spawned that are still running. */
async function alivePids(): Promise<number[]> {
  return (await h!.pids()).filter(isAlive);
}

const signedInTo = (log: FakeLogEntry[], pid: number) =>
  log.some((entry) => entry.pid === pid && entry.message?.method === "account/login/start");

/** The spare: an alive process that was initialised and never signed in. */
async function readySpare(): Promise<number> {
  return h!.fake.waitFor((log) => {
    const spawned = log.filter((entry) => entry.type === "spawned").map((entry) => entry.pid);
    return spawned.find(
      (pid) => isAlive(pid) && !signedInTo(log, pid) && log.some((entry) => entry.pid === pid && entry.message?.method === "initialized"),
    );
  }, "an initialised spare process");
}

describe("concurrent starts", () => {
  it("10 at once from one login: one 201, nine 409 realtime_start_superseded, and only the live process and the spare remain", async () => {
    h = await startAgentHarness({ agentVoice: { keepWarmProcess: true } });
    const client = await h.signedIn();
    const replies = await Promise.all(Array.from({ length: 10 }, () => client.post("/realtime/app-server", startBody)));
    const spare = await readySpare();
    const alive = await alivePids();
    const log = await h.fake.log();
    // Counted first: the leak is the finding.
    expect(alive.filter((pid) => signedInTo(log, pid))).toHaveLength(1);
    expect(alive.sort()).toEqual([spare, ...alive.filter((pid) => signedInTo(log, pid))].sort());

    const won = replies.filter((reply) => reply.status === 201);
    expect(won).toHaveLength(1);
    for (const lost of replies.filter((reply) => reply.status !== 201)) {
      expect(lost.status).toBe(409);
      expect(lost.json()).toEqual({ error: "realtime_start_superseded", message: expect.any(String) });
    }
    const { sessionId } = won[0]!.json<{ sessionId: string }>();
    expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  });

  it("4 users at once: each gets its live process, and nothing else but the spare is left", async () => {
    h = await startAgentHarness({ agentVoice: { keepWarmProcess: true } });
    const clients = await Promise.all(
      [1, 2, 3, 4].map(async (n) => {
        const client = h!.client();
        await signIn(h!, client, { accountId: `acct_user_${n}`, email: `user${n}@example.com` });
        return client;
      }),
    );
    const replies = await Promise.all(clients.map((client) => client.post("/realtime/app-server", startBody)));
    expect(replies.map((reply) => reply.status)).toEqual([201, 201, 201, 201]);
    const spare = await readySpare();
    const log = await h.fake.log();
    const alive = await alivePids();
    expect(alive.filter((pid) => signedInTo(log, pid))).toHaveLength(4);
    expect(alive.filter((pid) => !signedInTo(log, pid))).toEqual([spare]);
    await Promise.all(
      replies.map((reply, i) => clients[i]!.request("DELETE", `/realtime/app-server/${reply.json<{ sessionId: string }>().sessionId}`)),
    );
  });

  it("the handler's close() ends every process it made, the spare included, and removes their folders", async () => {
    h = await startAgentHarness({ agentVoice: { keepWarmProcess: true } });
    const client = await h.signedIn();
    await h.startLive(client);
    const spare = await readySpare();
    const live = await h.livePid();
    await h.provider.close();
    expect(isAlive(spare)).toBe(false);
    expect(isAlive(live)).toBe(false);
    // After close, a start is refused, never spawned.
    const before = (await h.pids()).length;
    const reply = await client.post("/realtime/app-server", startBody);
    expect(reply.status).toBe(503);
    expect(reply.json()).toMatchObject({ error: "realtime_busy" });
    expect((await h.pids()).length).toBe(before);
  });
});
