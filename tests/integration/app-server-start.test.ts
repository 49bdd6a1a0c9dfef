/**
 * Agent voice, start and lockdown: what the bridge tells the app-server process, the environment
 * and folders it gets, and that everything is gone after a close.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OFFER_SDP, openEvents, startAgentHarness, waitForExit, finishAgentHarnessAfterEach, type AgentHarness } from "./app-server-harness";

let h: AgentHarness | undefined;
finishAgentHarnessAfterEach(
  () => h,
  () => (h = undefined),
);

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe("POST /realtime/app-server", () => {
  it("starts a live session: 201 with the answer SDP, and the handshake the contract describes", async () => {
    h = await startAgentHarness({ script: { answerSdp: "v=0\r\ns=the-fake-answer\r\n" } });
    const client = await h.signedIn();
    const reply = await client.post("/realtime/app-server", { sdp: OFFER_SDP, session: { voice: "cove", model: "gpt-5.5" } });
    expect(reply.status).toBe(201);
    const { sessionId, sdp } = reply.json<{ sessionId: string; sdp: string }>();
    expect(sdp).toBe("v=0\r\ns=the-fake-answer\r\n");
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const log = await h.fake.log();
    const sent = log.filter((entry) => entry.dir === "in").map((entry) => entry.message!);
    expect(sent.map((message) => message.method)).toEqual([
      "initialize",
      "initialized",
      "account/login/start",
      "thread/start",
      "thread/realtime/start",
    ]);
    expect(sent.every((message) => !("jsonrpc" in message))).toBe(true);
    expect(sent[0]!.params).toMatchObject({ capabilities: { experimentalApi: true } });
    const login = sent[2]!.params!;
    expect(login.type).toBe("chatgptAuthTokens");
    expect(h.evidence.issuedTokens.has(login.accessToken as string)).toBe(true);
    expect(login).toMatchObject({ chatgptAccountId: expect.any(String), chatgptPlanType: "plus" });
    expect(Object.keys(login).sort()).toEqual(["accessToken", "chatgptAccountId", "chatgptPlanType", "type"]);
    // Only the access token reaches the process: never the refresh token or the id token.
    const everythingSent = JSON.stringify(log);
    const others = [...h.evidence.issuedTokens].filter((token) => token !== login.accessToken);
    expect(others.length).toBeGreaterThan(0);
    for (const token of others) expect(everythingSent).not.toContain(token);

    const spawned = log.find((entry) => entry.type === "spawned")!;
    const thread = sent[3]!.params!;
    expect(thread).toMatchObject({ ephemeral: true, sandbox: "read-only", approvalPolicy: "on-request", model: "gpt-5.5" });
    expect(thread.cwd).toBe(spawned.cwd);
    expect((thread.dynamicTools as { name: string }[]).map((tool) => tool.name)).toEqual(["get_current_time", "save_note"]);
    expect(sent[4]!.params).toMatchObject({ outputModality: "audio", transport: { type: "webrtc", sdp: OFFER_SDP }, voice: "cove" });

    const events = await openEvents(client, sessionId);
    expect(events.response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(events.response.headers.get("cache-control")).toBe("no-store");
    expect(await events.next()).toMatchObject({ seq: 1, type: "session.started", sessionId });
    events.close();
    expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  });

  it("gives the process a minimal environment, a private 0700 home and an empty working folder, with no token on disk; all removed on close", async () => {
    process.env.LWC_SECRET = "a-secret-the-agent-must-never-see-0123456789";
    process.env.UPSTASH_REDIS_REST_TOKEN = "upstash-token-the-agent-must-never-see";
    try {
      h = await startAgentHarness();
      const client = await h.signedIn();
      const { sessionId } = await h.startLive(client);
      const log = await h.fake.log();
      const spawned = log.find((entry) => entry.type === "spawned")!;
      const env = spawned.env!;
      expect(Object.keys(env).every((name) => ["PATH", "HOME", "LANG", "CODEX_HOME", "PWD", "SHLVL", "_"].includes(name))).toBe(true);
      expect(JSON.stringify(env)).not.toContain("must-never-see");
      expect(env.CODEX_HOME!.startsWith(`${env.HOME}/`)).toBe(true);
      expect(spawned.cwd!.startsWith(`${env.HOME}/`)).toBe(true);
      expect((await stat(env.HOME!)).mode & 0o777).toBe(0o700);
      expect((await stat(env.CODEX_HOME!)).mode & 0o777).toBe(0o700);
      expect(await readdir(spawned.cwd!)).toEqual([]);

      const accessToken = log.find((entry) => entry.message?.method === "account/login/start")!.message!.params!.accessToken as string;
      for (const file of await filesUnder(env.HOME!)) expect(await readFile(file, "utf8")).not.toContain(accessToken);

      const pid = await h.livePid();
      expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
      await waitForExit(pid);
      await expect(stat(env.HOME!)).rejects.toMatchObject({ code: "ENOENT" });
    } finally {
      delete process.env.LWC_SECRET;
      delete process.env.UPSTASH_REDIS_REST_TOKEN;
    }
  });
});
