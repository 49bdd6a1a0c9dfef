/** Agent voice: every error status of the contract's app-server routes, and start failures. */
import { describe, expect, it } from "vitest";
import { startHarness } from "./harness";
import { OFFER_SDP, startAgentHarness, finishAgentHarnessAfterEach, type AgentHarness } from "./app-server-harness";

let h: AgentHarness | undefined;
finishAgentHarnessAfterEach(
  () => h,
  () => (h = undefined),
);

const start = "/realtime/app-server";

describe("app-server routes: errors", () => {
  it("do not exist when realtime.agentVoice is not configured", async () => {
    const plain = await startHarness();
    try {
      const client = plain.client();
      for (const path of [start, `${start}/abc/events`, `${start}/notes`]) {
        const reply = await client.get(path);
        expect(reply.status).toBe(404);
        expect(reply.headers.get("content-type")).toContain("text/plain");
      }
    } finally {
      await plain.close();
    }
  });

  it("401 not_authenticated on every route without a signed-in session", async () => {
    h = await startAgentHarness();
    const client = h.client();
    const replies = [
      await client.post(start, { sdp: OFFER_SDP }),
      await client.get(`${start}/abc/events`),
      await client.post(`${start}/abc/confirm`, { callId: "c", confirmation: { approved: true } }),
      await client.request("DELETE", `${start}/abc`),
      await client.get(`${start}/notes`),
    ];
    for (const reply of replies) {
      expect(reply.status).toBe(401);
      expect(reply.json()).toMatchObject({ error: "not_authenticated" });
    }
    expect(await h.pids()).toEqual([]);
  });

  it("404 realtime_session_not_found for an unknown id; 405 with Allow for a wrong method", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    for (const reply of [
      await client.get(`${start}/no-such-session/events`),
      await client.post(`${start}/no-such-session/confirm`, { callId: "c", confirmation: { approved: true } }),
      await client.request("DELETE", `${start}/no-such-session`),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.json()).toEqual({ error: "realtime_session_not_found" });
    }
    const wrong = await client.get(start);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST, OPTIONS");
  });

  it("400 invalid_realtime_request for a malformed start, 413 over the limit; no process spawned", async () => {
    h = await startAgentHarness({ handler: { realtime: { maxRequestBytes: 4096 } } });
    const client = await h.signedIn();
    for (const body of [
      "{not json",
      {},
      { sdp: "" },
      { sdp: "hello" },
      // No audio section: the provider would refuse it, so no codex process is spawned for it.
      { sdp: "v=0\r\ns=-\r\n" },
      { sdp: OFFER_SDP, session: { voice: "robot" } },
      { sdp: OFFER_SDP, session: { model: 42 } },
      { sdp: OFFER_SDP, session: "cove" },
    ]) {
      const reply = await client.post(start, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.json()).toMatchObject({ error: "invalid_realtime_request", message: expect.any(String) });
    }
    const big = await client.post(start, { sdp: OFFER_SDP + "a=x\r\n".repeat(1000) });
    expect(big.status).toBe(413);
    expect(big.json()).toEqual({ error: "realtime_request_too_large", maxRequestBytes: 4096 });
    expect(await h.pids()).toEqual([]);
  });

  it("403 realtime_model_not_allowed for a model off the account's list (the /responses list)", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const reply = await client.post(start, { sdp: OFFER_SDP, session: { voice: "cove", model: "gpt-unlisted" } });
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual({ error: "realtime_model_not_allowed", model: "gpt-unlisted" });
    expect(await h.pids()).toEqual([]);
  });

  it("403 origin_not_allowed for a cross-site start", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const reply = await client.post(start, { sdp: OFFER_SDP }, { origin: "https://evil.example" });
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual({ error: "origin_not_allowed", origin: "https://evil.example" });
  });

  describe("502 realtime_app_server_start_failed, with nothing left running: a fixed sentence; the details in the log only", () => {
    /** The start's log line: what the browser was not told. */
    const startLog = (harness: AgentHarness) =>
      harness.evidence.logs.map((line) => line.message).find((message) => message.includes("realtime app-server start failed"));

    it("when the realtime call fails before the answer SDP", async () => {
      h = await startAgentHarness({ script: { start: "realtime_error", realtimeErrorMessage: "upstream said no" } });
      const client = await h.signedIn();
      const reply = await client.post(start, { sdp: OFFER_SDP });
      expect(reply.status).toBe(502);
      expect(reply.json()).toEqual({ error: "realtime_app_server_start_failed", message: "The voice service refused the call. Try again shortly." });
      // Codex's message can quote the provider's reply: it reaches neither the browser nor the log.
      expect(h.evidence.logs.map((line) => line.message).join("\n")).not.toContain("upstream said no");
      expect(startLog(h)).toContain("the provider refused or failed the realtime call");
    });

    it("when codex refuses the thread: its words (which can name the upstream address) stay in the log", async () => {
      const codexWords = "error sending request for url (http://10.255.255.1:9/backend-api/codex/responses)";
      h = await startAgentHarness({ script: { start: "thread_start_error", threadStartErrorMessage: codexWords } });
      const client = await h.signedIn();
      const reply = await client.post(start, { sdp: OFFER_SDP });
      expect(reply.status).toBe(502);
      expect(reply.json()).toEqual({ error: "realtime_app_server_start_failed", message: "The agent could not start the voice session. Try again shortly." });
      expect(reply.text).not.toContain("10.255.255.1");
      expect(h.evidence.logs.map((line) => line.message).join("\n")).toContain("refused the start: error sending request for url (http://10.255.255.1");
    });

    it("when the process dies during the start", async () => {
      h = await startAgentHarness({ script: { start: "exit_on_start" } });
      const client = await h.signedIn();
      const reply = await client.post(start, { sdp: OFFER_SDP });
      expect(reply.status).toBe(502);
      expect(reply.json()).toEqual({ error: "realtime_app_server_start_failed", message: expect.stringMatching(/^The agent (stopped while the voice session was starting|could not start)/) });
      expect(reply.text).not.toContain(h.fake.dir);
    });

    it("when no answer comes within the start timeout", async () => {
      h = await startAgentHarness({ script: { start: "hang" }, agentVoice: { startTimeoutMs: 700 } });
      const client = await h.signedIn();
      const reply = await client.post(start, { sdp: OFFER_SDP });
      expect(reply.status).toBe(502);
      expect(reply.json()).toEqual({ error: "realtime_app_server_start_failed", message: "The agent did not answer in time. Try again." });
      expect(startLog(h)).toContain("no answer within 700 ms");
    });

    it("when the codex executable does not exist: the command's path is in the log line, not in the answer", async () => {
      h = await startAgentHarness({ agentVoice: { command: "/nonexistent/codex" } });
      const client = await h.signedIn();
      const reply = await client.post(start, { sdp: OFFER_SDP });
      expect(reply.status).toBe(502);
      expect(reply.json()).toEqual({
        error: "realtime_app_server_start_failed",
        message: "The agent could not start on this server. The server's log says why.",
      });
      expect(reply.text).not.toContain("/nonexistent");
      expect(startLog(h)).toContain("/nonexistent/codex");
    });

    it("when the codex executable does not exist, inside bwrap too (the sandbox's words stay in the log)", async () => {
      h = await startAgentHarness({ agentVoice: { command: "/nonexistent/codex", sandbox: "bwrap" } });
      const client = await h.signedIn();
      const reply = await client.post(start, { sdp: OFFER_SDP });
      expect(reply.status).toBe(502);
      expect(reply.json()).toEqual({
        error: "realtime_app_server_start_failed",
        message: "The agent could not start on this server. The server's log says why.",
      });
      expect(startLog(h)).toContain('the command "/nonexistent/codex" was not found');
    });
  });
});
