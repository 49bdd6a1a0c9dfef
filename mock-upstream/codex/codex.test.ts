import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "../server";
import { signInThroughMock, type MockTokenSet } from "../sign-in";
import { backendHeaders, parseSse, postJson, validBody } from "../test-utils";
import { AUTO_HANDOFF, SIDEBAND_IN, SIDEBAND_OUT, SIDEBAND_PATH } from "./index";

let mock: MockUpstream;
let tokens: MockTokenSet;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  tokens = await signInThroughMock(mock);
});
afterAll(() => mock.close());
beforeEach(() => {
  for (const socket of sockets.splice(0)) socket.terminate();
  mock.reset();
});

const wsUrl = (path: string) => `${mock.url.replace(/^http/, "ws")}${path}`;
const bearer = () => ({ authorization: `Bearer ${tokens.access_token}` });

/** Resolves with the HTTP status of a refused upgrade, or "open". */
function upgradeOutcome(path: string, headers: Record<string, string> = bearer()): Promise<number | "open"> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl(path), { headers });
    sockets.push(socket);
    socket.once("open", () => resolve("open"));
    socket.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
    socket.once("error", reject);
  });
}

async function openSideband(callId: string): Promise<{ socket: WebSocket; received: Record<string, unknown>[]; next: () => Promise<Record<string, unknown>> }> {
  const socket = new WebSocket(wsUrl(`${SIDEBAND_PATH}?intent=quicksilver&call_id=${callId}`), { headers: bearer() });
  sockets.push(socket);
  const received: Record<string, unknown>[] = [];
  const waiting: ((event: Record<string, unknown>) => void)[] = [];
  socket.on("message", (data) => {
    const event = JSON.parse(data.toString()) as Record<string, unknown>;
    const waiter = waiting.shift();
    if (waiter) waiter(event);
    else received.push(event);
  });
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  return {
    socket,
    received,
    next: () => (received.length > 0 ? Promise.resolve(received.shift()!) : new Promise((resolve) => waiting.push(resolve))),
  };
}

function codexResponses(body: Record<string, unknown>) {
  return fetch(`${mock.codexBaseUrl}/responses`, {
    method: "POST",
    headers: { ...backendHeaders(tokens), "x-codex-turn-metadata": "{}" },
    body: JSON.stringify(body),
  });
}

const userMessage = (text: string) => ({ type: "message", role: "user", content: [{ type: "input_text", text }] });

describe("workspace routing and settings", () => {
  it("wham/accounts/check answers the caller's account with an https origin and NO_CONSTRAINT", async () => {
    const reply = await fetch(`${mock.url}/backend-api/wham/accounts/check`, { headers: bearer() });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({
      accounts: [
        {
          id: "acct_demo",
          name: "Mock workspace",
          structure: "personal",
          plan_type: "plus",
          workspace_backend_origin: "https://chatgpt.com",
          account_routing_override: "NO_CONSTRAINT",
        },
      ],
      account_ordering: ["acct_demo"],
      default_account_id: "acct_demo",
    });
  });

  it("wham routes refuse a missing or bad token", async () => {
    expect((await fetch(`${mock.url}/backend-api/wham/accounts/check`)).status).toBe(401);
    const bad = await fetch(`${mock.url}/backend-api/wham/settings/user`, { headers: { authorization: "Bearer nope" } });
    expect(bad.status).toBe(401);
    expect((await fetch(`${mock.url}/backend-api/wham/settings/user`, { headers: bearer() })).status).toBe(200);
  });
});

describe("WebSocket upgrades", () => {
  it("refuses a WebSocket on /responses with 426 (codex then uses SSE), and unknown paths with 404; both recorded", async () => {
    expect(await upgradeOutcome("/backend-api/codex/responses")).toBe(426);
    expect(await upgradeOutcome("/somewhere")).toBe(404);
    expect(mock.requests({ path: "/backend-api/codex/responses" }).map((r) => r.status)).toEqual([426]);
  });

  it("the sideband needs a token and a call_id", async () => {
    expect(await upgradeOutcome(`${SIDEBAND_PATH}?call_id=rtc_1`, {})).toBe(401);
    expect(await upgradeOutcome(SIDEBAND_PATH)).toBe(400);
    expect(await upgradeOutcome(`${SIDEBAND_PATH}?call_id=rtc_1`)).toBe("open");
  });
});

describe("the realtime sideband", () => {
  const frames = (method: string) => mock.requests({ path: SIDEBAND_PATH }).filter((r: RecordedRequest) => r.method === method);

  it("records what codex sends, and a handoff cue sends the user's transcript then conversation.handoff.requested", async () => {
    const side = await openSideband("rtc_abc");
    side.socket.send(JSON.stringify({ type: "session.update", session: { type: "quicksilver" } }));
    const update = await mock.waitForRequest((r) => r.method === SIDEBAND_IN);
    expect(update).toMatchObject({ path: SIDEBAND_PATH, query: { call_id: "rtc_abc" }, body: { type: "session.update" } });
    expect(mock.codex.openSidebands()).toEqual(["rtc_abc"]);

    const sent = mock.codex.requestHandoff({ transcript: "save a note", handoffId: "handoff_1", itemId: "item_1" });
    expect(sent).toEqual({ callId: "rtc_abc", handoffId: "handoff_1", itemId: "item_1" });
    expect(await side.next()).toEqual({ type: "conversation.input_transcript.delta", delta: "save a note" });
    expect(await side.next()).toEqual({ type: "conversation.input_transcript.turn_marked", transcript: "save a note" });
    expect(await side.next()).toEqual({ type: "conversation.handoff.requested", handoff_id: "handoff_1", item_id: "item_1", input_transcript: "save a note" });
    expect(frames(SIDEBAND_OUT).map((r) => (r.body as { type: string }).type)).toEqual([
      "conversation.input_transcript.delta",
      "conversation.input_transcript.turn_marked",
      "conversation.handoff.requested",
    ]);

    side.socket.send(JSON.stringify({ type: "conversation.handoff.append", handoff_id: "handoff_1", output_text: "done" }));
    const append = await mock.waitForRequest((r) => r.method === SIDEBAND_IN && (r.body as { type?: string }).type === "conversation.handoff.append");
    expect(append.body).toEqual({ type: "conversation.handoff.append", handoff_id: "handoff_1", output_text: "done" });
  });

  it("control API: handoff and raw events go to the newest sideband; 409 when none is open; 400 on bad input", async () => {
    const control = (path: string, body: unknown) => postJson(`${mock.url}/__mock/codex/${path}`, body);
    expect((await control("handoff", { transcript: "hi" })).status).toBe(409);
    expect((await control("handoff", {})).status).toBe(400);
    expect((await control("sideband-event", { event: { no: "type" } })).status).toBe(400);

    const side = await openSideband("rtc_ctl");
    const handoff = await control("handoff", { transcript: "what time is it" });
    expect(handoff.status).toBe(200);
    expect(await handoff.json()).toMatchObject({ ok: true, callId: "rtc_ctl", handoffId: expect.stringMatching(/^handoff_/) });
    await side.next();
    await side.next();
    expect(await side.next()).toMatchObject({ type: "conversation.handoff.requested", input_transcript: "what time is it" });

    expect((await control("sideband-event", { event: { type: "response.output_audio_transcript.done", transcript: "It is noon." } })).status).toBe(200);
    expect(await side.next()).toEqual({ type: "response.output_audio_transcript.done", transcript: "It is noon." });
    expect(await (await fetch(`${mock.url}/__mock/codex/sidebands`)).json()).toEqual({ callIds: ["rtc_ctl"] });
  });
});

describe("codexAutoHandoff (the demo)", () => {
  it("after codex's session.update the voice side hands over by itself, and the next turn is scripted", async () => {
    mock.setOptions({ codexAutoHandoff: true });
    const side = await openSideband("rtc_demo");
    side.socket.send(JSON.stringify({ type: "session.update", session: {} }));
    await side.next();
    await side.next();
    expect(await side.next()).toMatchObject({ type: "conversation.handoff.requested", input_transcript: AUTO_HANDOFF.transcript });
    const events = parseSse(await (await codexResponses({ ...validBody(), input: [userMessage(AUTO_HANDOFF.transcript)] })).text());
    expect(events.find((e) => e.event === "response.output_item.done")!.data.item).toMatchObject({ name: "get_current_time" });
  });

  it("is off by default: session.update gets no answer", async () => {
    const side = await openSideband("rtc_quiet");
    side.socket.send(JSON.stringify({ type: "session.update", session: {} }));
    await mock.waitForRequest((r) => r.method === SIDEBAND_IN);
    expect(mock.requests({ path: SIDEBAND_PATH }).filter((r) => r.method === SIDEBAND_OUT)).toEqual([]);
  });
});

describe("scripted codex turns on /responses", () => {
  it("answers with the queued calls one per request, then a final message quoting the tool outputs", async () => {
    mock.codex.queueToolCalls([{ name: "get_current_time", arguments: {} }, { name: "save_note", arguments: { text: "milk" } }]);
    const base = { ...validBody(), prompt_cache_key: "thread-1" };
    delete (base as { instructions?: string }).instructions;
    const turn = [userMessage("do things")];

    const first = parseSse(await (await codexResponses({ ...base, input: turn })).text());
    const call1 = first.find((e) => e.event === "response.output_item.done")!.data.item as Record<string, string>;
    expect(call1).toMatchObject({ type: "function_call", name: "get_current_time", arguments: "{}", status: "completed" });
    expect(first.at(-1)!.event).toBe("response.completed");

    const afterOne = [...turn, { type: "function_call", id: "fc_1", call_id: call1.call_id, name: "get_current_time", arguments: "{}" }, { type: "function_call_output", id: "fco_1", call_id: call1.call_id, output: "noon" }];
    // A retried request of the same turn gets the same answer.
    for (let attempt = 0; attempt < 2; attempt++) {
      const second = parseSse(await (await codexResponses({ ...base, input: afterOne })).text());
      expect(second.find((e) => e.event === "response.output_item.done")!.data.item).toMatchObject({ name: "save_note", arguments: '{"text":"milk"}' });
    }

    const afterTwo = [...afterOne, { type: "function_call", call_id: "c2", name: "save_note", arguments: "{}" }, { type: "function_call_output", call_id: "c2", output: [{ type: "input_text", text: "saved" }] }];
    const final = parseSse(await (await codexResponses({ ...base, input: afterTwo })).text());
    expect(final.find((e) => e.event === "response.output_text.done")!.data.text).toBe("Done.\nget_current_time: noon\nsave_note: saved");

    // The next turn (a new user message) has no script: the usual echo.
    const next = parseSse(await (await codexResponses({ ...base, input: [...afterTwo, userMessage("thanks")] })).text());
    expect(next.find((e) => e.event === "response.output_text.done")!.data.text).toMatch(/^You said: "thanks"/);
  });

  it("a call with `input` is a freeform custom_tool_call (apply_patch)", async () => {
    mock.codex.queueToolCalls([{ name: "apply_patch", input: "*** Begin Patch\n*** End Patch\n" }]);
    const events = parseSse(await (await codexResponses({ ...validBody(), input: [userMessage("patch")] })).text());
    expect(events.map((e) => e.event)).toContain("response.custom_tool_call_input.delta");
    expect(events.find((e) => e.event === "response.output_item.done")!.data.item).toMatchObject({
      type: "custom_tool_call",
      name: "apply_patch",
      input: "*** Begin Patch\n*** End Patch\n",
    });
  });

  it("only the codex executable's requests may leave out instructions and keep item ids", async () => {
    const codexShaped = { ...validBody(), input: [{ ...userMessage("hi"), id: "msg_1" }] };
    delete (codexShaped as { instructions?: string }).instructions;
    expect((await codexResponses(codexShaped)).status).toBe(200);
    const plain = await fetch(`${mock.codexBaseUrl}/responses`, { method: "POST", headers: backendHeaders(tokens), body: JSON.stringify(codexShaped) });
    expect(plain.status).toBe(400);
    expect(await plain.json()).toEqual({ detail: "Instructions are required" });
  });

  it("control API: tool-calls queues a script (400 on an empty list)", async () => {
    expect((await postJson(`${mock.url}/__mock/codex/tool-calls`, { calls: [] })).status).toBe(400);
    expect((await postJson(`${mock.url}/__mock/codex/tool-calls`, { calls: [{ name: "get_current_time" }] })).status).toBe(200);
    const events = parseSse(await (await codexResponses({ ...validBody(), input: [userMessage("time?")] })).text());
    expect(events.find((e) => e.event === "response.output_item.done")!.data.item).toMatchObject({ type: "function_call", name: "get_current_time" });
  });
});
