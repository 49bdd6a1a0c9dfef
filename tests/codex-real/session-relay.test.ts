/**
 * The session relay with the real `codex app-server` 0.169.0 against the mock, offline (every
 * connection through the app's egress proxy, which allows only the mock): one instance starts
 * the thread and goes away; the turn's tool call arrives while no client is attached; a second
 * instance attaches later from the first one's seq, gets it replayed and answers it. Then
 * idempotent input, refusals, and no process left after a close or after every client vanished.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { codexConfigToml } from "@/lib/agent-voice/codex-config";
import { readRelayLines } from "@/lib/agent-voice/relay/relay-client";
import { newRelayToken } from "@/lib/agent-voice/relay/relay-token";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { signInThroughMock, type MockTokenSet } from "@/mock-upstream/sign-in";
import { processAlive, startRelayProcess, waitUntil, type RelayProcess } from "@/test-support/session-relay-process";
import { codexExecutable, processGroupExists } from "./codex-binary";
import { startEgressRecorder, type EgressRecorder } from "./egress-recorder";
import { RelayRpc } from "./relay-rpc";

const SAVE_NOTE = {
  type: "function",
  name: "save_note",
  description: "Save a note for the person.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};

let mock: MockUpstream;
let egress: EgressRecorder;
let tokens: MockTokenSet;
let home: string;
let relay: RelayProcess | undefined;
const clients: RelayRpc[] = [];

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  egress = await startEgressRecorder([mock.url]);
  tokens = await signInThroughMock(mock);
}, 120_000);
afterAll(async () => {
  await egress?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());
afterEach(async () => {
  for (const client of clients.splice(0)) client.channel.detach();
  if (relay) {
    await relay.kill();
    // codex's launcher and the native binary it started: its own process group, led by codexPid.
    const codexGroup = relay.codexPid;
    await waitUntil(() => !processGroupExists(codexGroup));
    relay = undefined;
  }
  rmSync(home, { recursive: true, force: true });
  expect(egress.refused).toEqual([]);
});

async function startCodexRelay(options: { abandonAfterMs?: number } = {}): Promise<{ relay: RelayProcess; token: string }> {
  home = mkdtempSync(join(tmpdir(), "lwc-relay-codex-"));
  const codexHome = join(home, "codex-home");
  const workDir = join(home, "work");
  mkdirSync(codexHome, { mode: 0o700 });
  mkdirSync(workDir, { mode: 0o700 });
  writeFileSync(join(codexHome, "config.toml"), codexConfigToml({ codexBaseUrl: mock.codexBaseUrl, issuerUrl: mock.issuer, model: "gpt-5.5" }), { mode: 0o600 });
  const { token, sha256 } = newRelayToken();
  relay = await startRelayProcess({
    command: [codexExecutable(), "app-server"],
    tokenSha256: sha256,
    cwd: workDir,
    env: { HOME: home, CODEX_HOME: codexHome, ...egress.env },
    ...options,
  });
  return { relay, token };
}

function client(options: ConstructorParameters<typeof RelayRpc>[0]): RelayRpc {
  const rpc = new RelayRpc(options);
  clients.push(rpc);
  return rpc;
}

/** initialize, login with the mock's token, an ephemeral thread with one dynamic tool. */
async function startThread(rpc: RelayRpc, cwd: string): Promise<string> {
  await rpc.call("initialize", { clientInfo: { name: "lwc_tests", title: null, version: "0.0.0" }, capabilities: { experimentalApi: true } });
  await rpc.notify("initialized");
  await rpc.call("account/login/start", { type: "chatgptAuthTokens", accessToken: tokens.access_token, chatgptAccountId: "acct_demo", chatgptPlanType: "plus" });
  expect((await rpc.waitForNotification("account/login/completed")).params).toMatchObject({ success: true });
  const started = await rpc.call("thread/start", { ephemeral: true, approvalPolicy: "on-request", sandbox: "read-only", cwd, dynamicTools: [SAVE_NOTE] });
  return (started.thread as { id: string }).id;
}

/** Polls the relay's buffer (read without following) until a line matches. */
async function bufferedLine(relayProcess: RelayProcess, token: string, after: number, matches: (message: Record<string, unknown>) => boolean) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = (await readRelayLines(relayProcess.address, token, after)).find((entry) => matches(JSON.parse(entry.line) as Record<string, unknown>));
    if (found) return found;
    if (Date.now() > deadline) throw new Error("the line never came");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function status(relayProcess: RelayProcess, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ socketPath: (relayProcess.address as { socketPath: string }).socketPath, path: "/healthz", headers }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    outgoing.once("error", reject);
    outgoing.end();
  });
}

describe("codex app-server behind the session relay", () => {
  it("a tool call that arrives while no client is attached is replayed to a client that attaches later, which answers it; the turn completes", async () => {
    const { relay, token } = await startCodexRelay();
    const workDir = join(home, "work");
    const first = client({ address: relay.address, token, idPrefix: "a" });
    const threadId = await startThread(first, workDir);
    const epoch = first.channel.epoch();
    const firstSeq = first.channel.lastSeq();
    first.channel.detach();

    // No client follows: one that only sends starts the turn.
    mock.codex.queueToolCalls([{ name: "save_note", arguments: { text: "buy milk" } }]);
    const sender = client({ address: relay.address, token, idPrefix: "s", follow: false });
    await sender.send({ id: "s-1", method: "turn/start", params: { threadId, input: [{ type: "text", text: "Note: buy milk.", text_elements: [] }] } });
    const toolCallLine = await bufferedLine(relay, token, firstSeq, (message) => message.method === "item/tool/call");

    const second = client({ address: relay.address, token, idPrefix: "b", after: firstSeq, epoch });
    const toolCall = await second.waitFor((m) => m.method === "item/tool/call");
    expect(toolCall.seq).toBe(toolCallLine.seq);
    expect(toolCall.params).toMatchObject({ threadId, tool: "save_note", arguments: { text: "buy milk" } });
    // The replay starts right after the first client's last line: the turn's start is in it too.
    expect(second.messages[0]!.seq).toBe(firstSeq + 1);
    expect(second.messages.some((m) => m.id === "s-1" && m.result !== undefined)).toBe(true);
    expect(second.messages.some((m) => m.method === "turn/started")).toBe(true);

    await second.send({ id: toolCall.id, result: { contentItems: [{ type: "inputText", text: "Saved by the second instance." }], success: true } });
    const completed = await second.waitForNotification("turn/completed");
    expect((completed.params!.turn as { status: string }).status).toBe("completed");
    const lastRequest = mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!;
    const outputs = (lastRequest.body as { input: Record<string, unknown>[] }).input.filter((item) => item.type === "function_call_output");
    expect(outputs.map((item) => item.output)).toEqual(["Saved by the second instance."]);
  });

  it("an input sent twice with the same id reaches codex once (one answer); a wrong token or an Origin header is refused", async () => {
    const { relay, token } = await startCodexRelay();
    const rpc = client({ address: relay.address, token, idPrefix: "a" });
    await startThread(rpc, join(home, "work"));
    const read = { id: "a-read", method: "account/read", params: {} };
    await rpc.send(read, "the-same-input");
    await rpc.send(read, "the-same-input");
    await rpc.call("account/read", {});
    expect(rpc.messages.filter((m) => m.id === "a-read")).toHaveLength(1);

    expect(await status(relay, { authorization: `Bearer ${token}` })).toBe(200);
    expect(await status(relay, { authorization: "Bearer not-the-token" })).toBe(401);
    expect(await status(relay, { authorization: `Bearer ${token}`, origin: "https://evil.example" })).toBe(403);
    const outsider = client({ address: relay.address, token: "not-the-token", idPrefix: "x" });
    expect(await outsider.channel.ended).toEqual({ reason: "refused", status: 401, error: "unauthorized" });
  });

  it("close ends codex and the relay: no process of either is left", async () => {
    const { relay, token } = await startCodexRelay();
    const rpc = client({ address: relay.address, token, idPrefix: "a" });
    await startThread(rpc, join(home, "work"));
    expect(processGroupExists(relay.codexPid)).toBe(true);
    expect(await rpc.channel.close()).toEqual({ reason: "exited", why: "closed", code: 0, signal: null });
    expect(await relay.exited).toEqual({ code: 0, signal: null });
    await waitUntil(() => !processGroupExists(relay.codexPid));
    expect(processAlive(relay.pid)).toBe(false);
  });

  it("when every client vanishes for good, the relay ends codex and itself: no process left", async () => {
    const { relay, token } = await startCodexRelay({ abandonAfterMs: 1_000 });
    const rpc = client({ address: relay.address, token, idPrefix: "a" });
    await startThread(rpc, join(home, "work"));
    rpc.channel.detach();
    expect(await relay.exited).toEqual({ code: 0, signal: null });
    await waitUntil(() => !processGroupExists(relay.codexPid));
  });
});
