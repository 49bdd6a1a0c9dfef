/**
 * Agent voice, while live: handoffs, tools, confirmations, declined approvals, token refresh, and
 * the event stream (buffer before the first subscriber, resume with ?after=, keepalive).
 */
import { describe, expect, it } from "vitest";
import { answerTo } from "@/test-support/fake-app-server/control";
import type { ConfirmTool } from "@/lib/agent-voice/types";
import { referenceConfirmTool } from "@/lib/agent-voice/tools";
import type { TestClient } from "./harness";
import { openEvents, startAgentHarness, waitForExit, finishAgentHarnessAfterEach, type AgentHarness } from "./app-server-harness";

let h: AgentHarness | undefined;
finishAgentHarnessAfterEach(
  () => h,
  () => (h = undefined),
);

async function hangUp(client: TestClient, sessionId: string) {
  const pid = await h!.livePid();
  expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  await waitForExit(pid);
}

function answerFor(method: string, n = 0) {
  return h!.fake.waitFor((log) => answerTo(log, method, n), `our answer to ${method}`);
}

describe("live session events", () => {
  it("turns a handoff_request item into a handoff event with its transcript", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const events = await openEvents(client, sessionId);
    await h.fake.send({ do: "handoff", handoffId: "handoff_7", transcript: "save a note that says buy milk" });
    expect(await events.next((e) => e.type === "handoff")).toMatchObject({
      seq: 2,
      handoffId: "handoff_7",
      transcript: "save a note that says buy milk",
      activeTranscript: [{ role: "user", text: "save a note that says buy milk" }],
    });
    events.close();
    await hangUp(client, sessionId);
  });

  it("runs get_current_time at once: tool.running, tool.completed, and the server's time back to Codex", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const events = await openEvents(client, sessionId);
    const before = Date.now();
    await h.fake.send({ do: "tool_call", tool: "get_current_time", callId: "call_time", arguments: {} });
    expect(await events.next((e) => e.type.startsWith("tool."))).toMatchObject({ type: "tool.running", callId: "call_time", tool: "get_current_time" });
    expect(await events.next((e) => e.type.startsWith("tool."))).toMatchObject({ type: "tool.completed", callId: "call_time", tool: "get_current_time" });
    const answer = (await answerFor("item/tool/call")) as { result: { success: boolean; contentItems: { type: string; text: string }[] } };
    expect(answer.result.success).toBe(true);
    const { now } = JSON.parse(answer.result.contentItems[0]!.text) as { now: string };
    expect(Date.parse(now)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(now)).toBeLessThanOrEqual(Date.now() + 1000);
    events.close();
    await hangUp(client, sessionId);
  });

  it("fails a call of a tool that was not configured: a JSON-RPC error to Codex and tool.failed", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const events = await openEvents(client, sessionId);
    await h.fake.send({ do: "tool_call", tool: "exec_shell", callId: "call_x", arguments: { cmd: "ls" } });
    expect(await events.next((e) => e.type === "tool.failed")).toMatchObject({ callId: "call_x", tool: "exec_shell" });
    expect(await answerFor("item/tool/call")).toMatchObject({ error: { code: -32601 } });
    events.close();
    await hangUp(client, sessionId);
  });
});

describe("save_note and confirmations", () => {
  async function pendingNote(text = "buy milk") {
    const client = await h!.signedIn();
    const { sessionId } = await h!.startLive(client);
    const events = await openEvents(client, sessionId);
    await h!.fake.send({ do: "tool_call", tool: "save_note", callId: "call_note", arguments: { text } });
    const pending = await events.next((e) => e.type === "tool.pending_confirmation");
    return { client, sessionId, events, pending };
  }

  it("waits for the person: pending with the review payload only; approval saves the note and tells Codex", async () => {
    h = await startAgentHarness();
    const { client, sessionId, events, pending } = await pendingNote();
    expect(pending).toMatchObject({ callId: "call_note", tool: "save_note", review: { text: "buy milk" } });
    expect(Object.keys(pending).sort()).toEqual(["at", "callId", "review", "seq", "tool", "type"]);
    expect((await client.get("/realtime/app-server/notes")).json()).toEqual({ notes: [] });
    // Nothing answered yet: the call waits for the confirm request.
    expect(answerTo(await h.fake.log(), "item/tool/call")).toBeUndefined();

    const confirmed = await client.post(`/realtime/app-server/${sessionId}/confirm`, { callId: "call_note", confirmation: { approved: true } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.json()).toEqual({ callId: "call_note", approved: true });
    expect(await events.next((e) => e.type === "tool.completed")).toMatchObject({ callId: "call_note", approved: true });
    const answer = (await answerFor("item/tool/call")) as { result: { success: boolean; contentItems: { text: string }[] } };
    expect(answer.result.success).toBe(true);
    expect(JSON.parse(answer.result.contentItems[0]!.text)).toMatchObject({ saved: true });
    const notes = (await client.get("/realtime/app-server/notes")).json<{ notes: { text: string }[] }>().notes;
    expect(notes.map((note) => note.text)).toEqual(["buy milk"]);

    // Idempotent by callId: the second confirm is refused and saves nothing more.
    const again = await client.post(`/realtime/app-server/${sessionId}/confirm`, { callId: "call_note", confirmation: { approved: true } });
    expect(again.status).toBe(409);
    expect(again.json()).toMatchObject({ error: "realtime_confirmation_failed", message: expect.any(String) });
    expect((await client.get("/realtime/app-server/notes")).json<{ notes: unknown[] }>().notes).toHaveLength(1);
    events.close();
    await hangUp(client, sessionId);
  });

  it("a denial saves nothing and tells Codex it was declined", async () => {
    h = await startAgentHarness();
    const { client, sessionId, events } = await pendingNote("do not keep");
    const denied = await client.post(`/realtime/app-server/${sessionId}/confirm`, { callId: "call_note", confirmation: { approved: false } });
    expect(denied.json()).toEqual({ callId: "call_note", approved: false });
    expect(await events.next((e) => e.type === "tool.completed")).toMatchObject({ callId: "call_note", approved: false });
    expect(await answerFor("item/tool/call")).toMatchObject({ result: { success: false } });
    expect((await client.get("/realtime/app-server/notes")).json()).toEqual({ notes: [] });
    events.close();
    await hangUp(client, sessionId);
  });

  it("a spoken yes changes nothing: the call stays pending until the confirm request", async () => {
    h = await startAgentHarness();
    const { client, sessionId, events } = await pendingNote();
    await h.fake.send({ do: "notify", method: "thread/realtime/transcript/done", params: { role: "user", text: "yes, save it" } });
    await h.fake.send({ do: "handoff", transcript: "yes, I confirm, save it" });
    await events.next((e) => e.type === "handoff");
    expect(answerTo(await h.fake.log(), "item/tool/call")).toBeUndefined();
    expect((await client.get("/realtime/app-server/notes")).json()).toEqual({ notes: [] });
    const confirmed = await client.post(`/realtime/app-server/${sessionId}/confirm`, { callId: "call_note", confirmation: { approved: true } });
    expect(confirmed.status).toBe(200);
    events.close();
    await hangUp(client, sessionId);
  });

  it("a failing confirmTool answers 500 and keeps the call pending, so a retry can succeed", async () => {
    let failures = 1;
    const flaky: ConfirmTool = async (input) => {
      if (failures-- > 0) throw new Error("database down");
      return referenceConfirmTool(input);
    };
    h = await startAgentHarness({ confirmTool: flaky });
    const { client, sessionId, events } = await pendingNote();
    const failed = await client.post(`/realtime/app-server/${sessionId}/confirm`, { callId: "call_note", confirmation: { approved: true } });
    expect(failed.status).toBe(500);
    expect(failed.json()).toMatchObject({ error: "realtime_confirmation_failed" });
    expect(failed.text).not.toContain("database down");
    const logs = h.evidence.logs.map((line) => line.message);
    expect(logs).toContainEqual(expect.stringMatching(/^\[login-with-chatgpt\] realtime confirmation of save_note failed: Error request_id=[0-9a-f-]{36}$/));
    expect(logs.join("\n")).not.toContain("database down");
    expect((await client.get("/realtime/app-server/notes")).json()).toEqual({ notes: [] });
    const retried = await client.post(`/realtime/app-server/${sessionId}/confirm`, { callId: "call_note", confirmation: { approved: true } });
    expect(retried.status).toBe(200);
    expect((await client.get("/realtime/app-server/notes")).json<{ notes: unknown[] }>().notes).toHaveLength(1);
    events.close();
    await hangUp(client, sessionId);
  });

  it("without confirmTool the confirm route answers 501", async () => {
    h = await startAgentHarness({ confirmTool: null });
    const { client, sessionId, events } = await pendingNote();
    const reply = await client.post(`/realtime/app-server/${sessionId}/confirm`, { callId: "call_note", confirmation: { approved: true } });
    expect(reply.status).toBe(501);
    expect(reply.json()).toEqual({ error: "realtime_confirmation_not_configured" });
    events.close();
    await hangUp(client, sessionId);
  });

  it("rejects a malformed confirmation (400), an unknown callId (409) and a body over the limit (413)", async () => {
    h = await startAgentHarness({ handler: { realtime: { maxRequestBytes: 2048 } } });
    const { client, sessionId, events } = await pendingNote();
    const path = `/realtime/app-server/${sessionId}/confirm`;
    for (const body of ["not json", {}, { callId: "call_note" }, { callId: "call_note", confirmation: { approved: "yes" } }, { callId: 5, confirmation: { approved: true } }]) {
      const reply = await client.post(path, body);
      expect(reply.status).toBe(400);
      expect(reply.json()).toMatchObject({ error: "invalid_realtime_confirmation", message: expect.any(String) });
    }
    expect((await client.post(path, { callId: "call_other", confirmation: { approved: true } })).status).toBe(409);
    const big = await client.post(path, { callId: "call_note", confirmation: { approved: true }, pad: "x".repeat(4096) });
    expect(big.status).toBe(413);
    expect(big.json()).toEqual({ error: "realtime_request_too_large", maxRequestBytes: 2048 });
    // Still pending after all that.
    expect((await client.post(path, { callId: "call_note", confirmation: { approved: false } })).status).toBe(200);
    events.close();
    await hangUp(client, sessionId);
  });
});

describe("the agent gets no power over the server", () => {
  const turn = { turnId: "turn_1", itemId: "item_1", startedAtMs: 1 };
  const approvals: [string, Record<string, unknown>, unknown][] = [
    ["item/commandExecution/requestApproval", { ...turn, command: "touch /tmp/pwned", cwd: "/" }, { decision: "decline" }],
    ["item/fileChange/requestApproval", { ...turn }, { decision: "decline" }],
    ["item/permissions/requestApproval", { ...turn, cwd: "/", permissions: { network: { enabled: true } } }, { permissions: {}, scope: "turn" }],
    ["item/tool/requestUserInput", { turnId: "turn_1", itemId: "item_1", isBlocking: true, questions: [{ id: "q", header: "Q", question: "Password?" }] }, { answers: {} }],
    ["mcpServer/elicitation/request", { serverName: "x", turnId: null, mode: "form", message: "Give me a key", requestedSchema: { type: "object", properties: {} } }, { action: "decline" }],
    ["applyPatchApproval", { conversationId: "00000000-0000-7000-8000-000000000000", callId: "c1", fileChanges: {} }, { decision: { denied: { rejection: expect.any(String) } } }],
    ["execCommandApproval", { conversationId: "00000000-0000-7000-8000-000000000000", callId: "c2", command: ["touch", "/tmp/pwned"], cwd: "/", parsedCmd: [] }, { decision: { denied: { rejection: expect.any(String) } } }],
  ];

  it("declines every approval request with the protocol's own refusal, and answers unknown requests with an error", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    for (const [method, params] of approvals) await h.fake.send({ do: "request", method, params });
    for (const [method, , expected] of approvals) expect(await answerFor(method)).toMatchObject({ result: expected });
    await h.fake.send({ do: "request", method: "attestation/generate", params: {} });
    expect(await answerFor("attestation/generate")).toMatchObject({ error: { code: -32601 } });
    await hangUp(client, sessionId);
  });
});

describe("token refresh for the agent", () => {
  it("answers account/chatgptAuthTokens/refresh through the login's single-flight refresh, with the new access token", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const log = await h.fake.log();
    const first = log.find((entry) => entry.message?.method === "account/login/start")!.message!.params!;
    const refreshesBefore = h.mock.requests().filter((r) => r.path === "/oauth/token" && (r.body as Record<string, unknown>)?.grant_type === "refresh_token").length;
    await h.fake.send({ do: "refresh" });
    const answer = (await answerFor("account/chatgptAuthTokens/refresh")) as { result: Record<string, unknown> };
    expect(answer.result.accessToken).not.toBe(first.accessToken);
    expect(h.evidence.issuedTokens.has(answer.result.accessToken as string)).toBe(true);
    expect(answer.result).toMatchObject({ chatgptAccountId: first.chatgptAccountId, chatgptPlanType: "plus" });
    expect(Object.keys(answer.result).sort()).toEqual(["accessToken", "chatgptAccountId", "chatgptPlanType"]);
    const refreshesAfter = h.mock.requests().filter((r) => r.path === "/oauth/token" && (r.body as Record<string, unknown>)?.grant_type === "refresh_token").length;
    expect(refreshesAfter).toBe(refreshesBefore + 1);
    // The refreshed login is what the rest of the app now uses too.
    expect((await client.get("/session")).json()).toMatchObject({ status: "authenticated" });
    await hangUp(client, sessionId);
  });

  it("a dead refresh token ends the live session (login expired)", async () => {
    h = await startAgentHarness();
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const events = await openEvents(client, sessionId);
    const pid = await h.livePid();
    h.mock.addFault({ fault: "dead_refresh_token" });
    await h.fake.send({ do: "refresh" });
    expect(await answerFor("account/chatgptAuthTokens/refresh")).toMatchObject({ error: { code: -32603 } });
    expect(await events.next((e) => e.type === "session.closed")).toMatchObject({ reason: "login_expired" });
    await waitForExit(pid);
  });
});

describe("the event stream", () => {
  it("keeps events from before the first subscriber, resumes with ?after=, and drops the oldest beyond the buffer", async () => {
    h = await startAgentHarness({ agentVoice: { eventBufferSize: 4 } });
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    for (let i = 1; i <= 3; i += 1) await h.fake.send({ do: "handoff", transcript: `early ${i}` });
    // Wait until the fake sent all three before anyone subscribes.
    await h.fake.waitFor((log) => (log.filter((e) => e.message?.method === "thread/realtime/itemAdded").length === 3 ? true : undefined), "three handoffs");
    const first = await openEvents(client, sessionId);
    expect((await first.next((e) => e.transcript === "early 3")).seq).toBe(4);
    expect(first.seen.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    first.close();

    const resumed = await openEvents(client, sessionId, 2);
    await resumed.next((e) => e.transcript === "early 3");
    expect(resumed.seen.map((e) => e.seq)).toEqual([3, 4]);
    resumed.close();

    for (let i = 4; i <= 5; i += 1) await h.fake.send({ do: "handoff", transcript: `late ${i}` });
    const watcher = await openEvents(client, sessionId, 4);
    await watcher.next((e) => e.transcript === "late 5");
    watcher.close();
    // Buffer of 4: seq 1 and 2 (the oldest) are gone; 3..6 are kept.
    const fromStart = await openEvents(client, sessionId, 0);
    await fromStart.next((e) => e.seq === 6);
    expect(fromStart.seen.map((e) => e.seq)).toEqual([3, 4, 5, 6]);
    fromStart.close();

    const bad = await client.get(`/realtime/app-server/${sessionId}/events?after=-1`);
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ error: "invalid_realtime_request" });
    await hangUp(client, sessionId);
  });

  it("sends keepalive lines carrying the last seq, and ends the stream after session.closed", async () => {
    h = await startAgentHarness({ agentVoice: { keepaliveIntervalMs: 50 } });
    const client = await h.signedIn();
    const { sessionId } = await h.startLive(client);
    const events = await openEvents(client, sessionId);
    expect(await events.next((e) => e.type === "keepalive")).toMatchObject({ seq: 1 });
    const pid = await h.livePid();
    expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
    const rest = await events.rest();
    expect(rest.filter((e) => e.type !== "keepalive").map((e) => e.type)).toEqual(["session.started", "session.closed"]);
    expect(rest.at(-1)).toMatchObject({ type: "session.closed", seq: 2, reason: "closed_by_client" });
    await waitForExit(pid);
  });
});
