import os from "node:os";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MockControl } from "../../e2e/support/mock-control";
import { CODEX_CALLS_PATH, startMockUpstream, type MockUpstream } from "../server";
import { signInThroughMock, type MockTokenSet } from "../sign-in";
import { replyTo, SCRIPTED_ASSISTANT_REPLY, SCRIPTED_USER_TRANSCRIPT } from "./conversation";
import { TestBrowserPeer } from "./test-browser-peer";

let mock: MockUpstream;
let tokens: MockTokenSet;
const peers: TestBrowserPeer[] = [];
beforeAll(async () => {
  mock = await startMockUpstream({ voiceWordMs: 30 });
  tokens = await signInThroughMock(mock);
});
afterAll(async () => {
  await Promise.all(peers.map((peer) => peer.close()));
  await mock.close();
});
beforeEach(() => mock.reset());

function authHeaders(accountId = "acct_demo"): Record<string, string> {
  return { authorization: `Bearer ${tokens.access_token}`, "chatgpt-account-id": accountId };
}

function newPeer(webTransport = false): TestBrowserPeer {
  const peer = new TestBrowserPeer({ webTransport });
  peers.push(peer);
  return peer;
}

const SESSION = { type: "quicksilver", model: "gpt-realtime-1.5", audio: { output: { voice: "cove" } } };

function postCodexCall(sdp: string, headers = authHeaders(), session: unknown = SESSION) {
  return fetch(`${mock.codexBaseUrl}/realtime/calls?intent=quicksilver&architecture=avas`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json", "openai-alpha": "quicksilver=v1" },
    body: JSON.stringify({ sdp, session }),
  });
}

function postWebCall(transport: "wm" | "vp" | "vps", sdp: string, session: unknown) {
  const form = new FormData();
  form.set("sdp", sdp);
  form.set("session", JSON.stringify(session));
  return fetch(`${mock.url}/realtime/${transport}?dcid=0`, {
    method: "POST",
    headers: { ...authHeaders(), accept: "application/sdp" },
    body: form,
  });
}

describe("codex WebRTC call", () => {
  it("answers a real offer; the call connects, speaks, hears the mic, and ends with the browser", async () => {
    const browser = newPeer();
    const reply = await postCodexCall(await browser.offer());
    expect(reply.status).toBe(201);
    expect(reply.headers.get("content-type")).toBe("application/sdp");
    const location = reply.headers.get("location") ?? "";
    expect(location).toMatch(/\/rtc_[0-9a-f]+$/);
    const answer = await reply.text();
    expect(answer.startsWith("v=0")).toBe(true);
    expect(answer).toContain("PCMU/8000");
    const candidates = answer.split("\r\n").filter((line) => line.startsWith("a=candidate:"));
    expect(candidates.length).toBeGreaterThan(0);
    for (const line of candidates) expect(line).toContain(" 127.0.0.1 ");

    await browser.accept(answer);
    await browser.connected();
    const id = location.slice(location.lastIndexOf("/") + 1);
    const live = await mock.waitForVoiceCall((call) => call.id === id && call.state === "connected");
    expect(live.browserAddress).toBe("127.0.0.1");
    await browser.waitForEvent((e) => e.type === "session.created");
    const userDone = await browser.waitForEvent((e) => e.type === "conversation.item.input_audio_transcription.completed");
    expect(userDone.transcript).toBe(SCRIPTED_USER_TRANSCRIPT);
    await browser.waitForEvent((e) => e.type === "output_audio_buffer.started");
    expect(await browser.waitForInboundLevel(0.05)).toBeGreaterThan(0.05);
    const assistantDone = await browser.waitForEvent((e) => e.type === "response.output_audio_transcript.done");
    expect(assistantDone.transcript).toBe(SCRIPTED_ASSISTANT_REPLY);

    browser.startMic(0.3);
    const hearing = await mock.waitForVoiceCall((call) => call.id === id && call.inboundLevel > 0.1);
    expect(hearing.inboundPackets).toBeGreaterThan(0);
    browser.startMic(0);
    await mock.waitForVoiceCall((call) => call.id === id && call.inboundLevel < 0.01);

    browser.send({ type: "conversation.item.create", item: { type: "message", role: "user", content: [{ type: "input_text", text: "What time is it?" }] } });
    browser.send({ type: "response.create" });
    const typedReply = await browser.waitForEvent(
      (e) => e.type === "response.output_audio_transcript.done" && e.transcript === replyTo("What time is it?"),
    );
    expect(typedReply.transcript).toContain("What time is it?");
    const seen = mock.voiceCalls().find((call) => call.id === id)!;
    expect(seen.dataChannelMessages).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "conversation.item.create" }), { type: "response.create" }]),
    );
    expect(seen.session).toEqual(SESSION);

    await browser.close();
    await mock.waitForVoiceCall((call) => call.id === id && call.state === "closed", 5000);
    const [recorded] = mock.requests({ path: CODEX_CALLS_PATH });
    expect(recorded).toMatchObject({ query: { intent: "quicksilver", architecture: "avas" }, headers: { "openai-alpha": "quicksilver=v1" }, status: 201 });
    expect(recorded!.body).toMatchObject({ session: SESSION });
  });
});

describe("ChatGPT web transports", () => {
  it("wm answers a multipart offer; events are wrapped in data_message on channel id 0", async () => {
    const browser = newPeer(true);
    const session = { voice: "juniper", voice_mode: "wingman", model_slug: "gpt-5.5" };
    const reply = await postWebCall("wm", await browser.offer(), session);
    expect(reply.status).toBe(201);
    expect(reply.headers.get("location")).toMatch(/\/rtc_[0-9a-f]+$/);
    await browser.accept(await reply.text());
    await browser.connected();
    await browser.waitForEvent((e) => e.type === "session.created");
    browser.send({ type: "relay_message", text: "typed words" });
    await browser.waitForEvent((e) => e.type === "response.output_audio_transcript.done" && e.transcript === replyTo("typed words"));
    const [call] = mock.voiceCalls();
    expect(call).toMatchObject({ transport: "wm", session, state: "connected", accountId: "acct_demo" });
    expect(call!.dataChannelMessages).toContainEqual({ type: "relay_message", text: "typed words" });
    expect(mock.requests({ path: "/realtime/wm" })[0]!.body).toMatchObject({ session: JSON.stringify(session) });

    const listed = (await (await fetch(`${mock.url}/__mock/voice-calls?accountId=acct_demo`)).json()) as { calls: unknown[] };
    expect(listed.calls).toEqual([expect.objectContaining({ id: call!.id, transport: "wm", state: "connected" })]);
    const otherAccount = (await (await fetch(`${mock.url}/__mock/voice-calls?accountId=acct_other`)).json()) as { calls: unknown[] };
    expect(otherAccount.calls).toEqual([]);
  });
});

// An IPv4 address of this machine other than loopback, where a browser without a loopback switch checks from.
const hostIpv4 = Object.values(os.networkInterfaces())
  .flat()
  .find((entry) => entry?.family === "IPv4" && !entry.internal)?.address;

describe("a browser that checks from another address of this machine", () => {
  it.skipIf(!hostIpv4)(`connects from ${hostIpv4 ?? "(no non-loopback IPv4 here)"} to the peer's 127.0.0.1 and speaks`, async () => {
    const browser = new TestBrowserPeer({ hostAddress: hostIpv4 });
    peers.push(browser);
    const offer = await browser.offer();
    expect(offer).toContain(` ${hostIpv4} `);
    expect(offer).not.toContain(" 127.0.0.1 ");
    const reply = await postCodexCall(offer);
    const answer = await reply.text();
    const candidates = answer.split("\r\n").filter((line) => line.startsWith("a=candidate:"));
    expect(candidates.length).toBeGreaterThan(0);
    for (const line of candidates) expect(line).toContain(" 127.0.0.1 ");
    await browser.accept(answer);
    await browser.connected();
    const call = await mock.waitForVoiceCall((c) => c.state === "connected");
    expect(call.browserAddress).toBe(hostIpv4);
    await browser.waitForEvent((e) => e.type === "output_audio_buffer.started");
    expect(await browser.waitForInboundLevel(0.05)).toBeGreaterThan(0.05);
  });
});

describe("auth and bad requests", () => {
  it("checks the bearer token and account like the other backend routes", async () => {
    const offer = await newPeer().offer();
    const missing = await postCodexCall(offer, {});
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: "missing_authorization" } });
    expect((await postCodexCall(offer, { authorization: "Bearer nope", "chatgpt-account-id": "acct_demo" })).status).toBe(401);
    expect((await postCodexCall(offer, authHeaders("acct_other"))).status).toBe(403);
    expect((await postCodexCall("not an sdp")).status).toBe(400);
    expect(mock.voiceCalls()).toEqual([]);
  });
});

describe("faults", () => {
  it("server_error and backend_unauthorized answer 500 / 401 JSON", async () => {
    const offer = await newPeer().offer();
    mock.addFault({ fault: "server_error" });
    const failed = await postCodexCall(offer);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ error: { type: "server_error" } });
    mock.addFault({ fault: "backend_unauthorized", accountId: "acct_demo" });
    const unauthorized = await postCodexCall(offer);
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toMatchObject({ error: { code: "token_expired" } });
    expect(mock.voiceCalls()).toEqual([]);
  });

  it("realtime_non_sdp answers 200 with a body that is not an SDP", async () => {
    mock.addFault({ fault: "realtime_non_sdp" });
    const reply = await postCodexCall(await newPeer().offer());
    expect(reply.status).toBe(200);
    expect(await reply.text()).not.toMatch(/^\s*v=0/);
  });

  it("realtime_session_refused answers 400 in plain text, quoting the session's instructions", async () => {
    mock.addFault({ fault: "realtime_session_refused" });
    const offer = await newPeer().offer();
    const reply = await postCodexCall(offer, authHeaders(), { ...SESSION, instructions: "talk like a pirate" });
    expect(reply.status).toBe(400);
    expect(reply.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await reply.text()).toBe('Unsupported session field "instructions": this voice no longer accepts it (got "talk like a pirate").');
    expect((await postCodexCall(offer)).status).toBe(201);
  });

  it("realtime_model_refused answers 400 with the backend's August 2026 words to a session that names a model, and lets one without through", async () => {
    mock.addFault({ fault: "realtime_model_refused" });
    const offer = await newPeer().offer();
    const withoutModel: Record<string, unknown> = { ...SESSION };
    delete withoutModel.model;
    expect((await postCodexCall(offer, authHeaders(), withoutModel)).status).toBe(201);
    const refused = await postCodexCall(offer);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ detail: "Field `session.model` is not allowed for this Codex realtime session" });
    expect((await postCodexCall(offer)).status).toBe(201);
  });

  it("a [[mock:<fault>]] marker anywhere in the session fires that fault for one request", async () => {
    const offer = await newPeer().offer();
    const marked = await postCodexCall(offer, authHeaders(), { ...SESSION, instructions: "hi [[mock:server_error]]" });
    expect(marked.status).toBe(500);
    expect((await postCodexCall(offer)).status).toBe(201);
  });

  it("realtime_hang never answers; the request is recorded as aborted when the client gives up", async () => {
    mock.addFault({ fault: "realtime_hang" });
    const offer = await newPeer().offer();
    await expect(
      fetch(`${mock.codexBaseUrl}/realtime/calls`, {
        method: "POST",
        headers: { ...authHeaders(), "content-type": "application/json" },
        body: JSON.stringify({ sdp: offer, session: SESSION }),
        signal: AbortSignal.timeout(300),
      }),
    ).rejects.toThrow();
    const recorded = await mock.waitForRequest((r) => r.path === CODEX_CALLS_PATH && r.aborted);
    expect(recorded.status).toBe(0);
  });

  it("realtime_never_connects answers a real SDP whose peer never completes ICE", async () => {
    mock.addFault({ fault: "realtime_never_connects" });
    const browser = newPeer();
    const reply = await postCodexCall(await browser.offer());
    expect(reply.status).toBe(201);
    const answer = await reply.text();
    expect(answer.startsWith("v=0")).toBe(true);
    await browser.accept(answer);
    await expect(browser.connected(1500)).rejects.toThrow(/no connected/);
    expect(mock.voiceCalls()[0]).toMatchObject({ state: "new", inboundPackets: 0 });
  });
});

describe("e2e's MockControl", () => {
  it("lists an account's calls over the control API and waits for a state", async () => {
    const control = new MockControl(mock.url);
    const browser = newPeer();
    const reply = await postCodexCall(await browser.offer());
    await browser.accept(await reply.text());
    await browser.connected();
    const live = await control.waitForVoiceCall("acct_demo", (call) => call.state === "connected");
    expect(live).toMatchObject({ transport: "codex", accountId: "acct_demo", session: SESSION });
    expect(await control.voiceCalls("acct_other")).toEqual([]);
    await browser.close();
    await control.waitForVoiceCall("acct_demo", (call) => call.state === "closed");
    await control.addFault({ fault: "realtime_non_sdp", accountId: "acct_demo" });
    expect((await postCodexCall(await newPeer().offer())).status).toBe(200);
  });
});

describe("lifecycle", () => {
  it("reset and close end every peer", async () => {
    const browser = newPeer();
    const reply = await postCodexCall(await browser.offer());
    await browser.accept(await reply.text());
    await browser.connected();
    await mock.waitForVoiceCall((call) => call.state === "connected");
    mock.reset();
    expect(mock.voiceCalls()).toEqual([]);
    await browser.closedByRemote(5000);

    const second = await startMockUpstream({ voiceWordMs: 30 });
    const secondTokens = await signInThroughMock(second);
    const other = newPeer();
    const answered = await fetch(`${second.codexBaseUrl}/realtime/calls`, {
      method: "POST",
      headers: { authorization: `Bearer ${secondTokens.access_token}`, "chatgpt-account-id": "acct_demo", "content-type": "application/json" },
      body: JSON.stringify({ sdp: await other.offer(), session: SESSION }),
    });
    await other.accept(await answered.text());
    await other.connected();
    await second.waitForVoiceCall((call) => call.state === "connected");
    await second.close();
    await other.closedByRemote(5000);
  });
});
