/**
 * The real `codex app-server` (pinned 0.171.0) against the mock, fully offline: login with a mock
 * token, a thread with our two tools, a realtime start answered by the mock, the sideband, a
 * handoff that calls both tools and hands the result back to the voice session, and the lockdown.
 * Every connection goes through the app's egress proxy (as in the sandbox: every proxy variable set,
 * NO_PROXY unset), which allows only the mock: any attempt to reach another host is refused and
 * recorded, and fails the test.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { codexConfigToml, REAL_CODEX_BASE_URL, REAL_ISSUER_URL } from "@/lib/agent-voice/codex-config";
import { CODEX_REALTIME_MODEL } from "@/lib/upstream/realtime";
import { CLIENT_VERSION } from "@/lib/upstream/config";
import { SIDEBAND_IN, SIDEBAND_PATH } from "@/mock-upstream/codex";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "@/mock-upstream/server";
import { signInThroughMock, type MockTokenSet } from "@/mock-upstream/sign-in";
import { AppServerDriver, declineEverything, type RpcMessage } from "./app-server-driver";
import { codexExecutable, processGroupExists } from "./codex-binary";
import { loopbackOffer, type LoopbackOffer } from "./loopback-offer";
import { startEgressRecorder, type EgressRecorder } from "./egress-recorder";
import { offeredToolNames } from "./offered-tools";

const TOOLS = [
  { type: "function", name: "get_current_time", description: "The server's current time.", inputSchema: { type: "object", properties: {} } },
  {
    type: "function",
    name: "save_note",
    description: "Save a note for the person (asks them first).",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
];

let codexPath: string;
let mock: MockUpstream;
let egress: EgressRecorder;
let tokens: MockTokenSet;
const drivers: AppServerDriver[] = [];
const offers: LoopbackOffer[] = [];

beforeAll(async () => {
  codexPath = codexExecutable();
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  egress = await startEgressRecorder([mock.url]);
  tokens = await signInThroughMock(mock);
}, 120_000);
afterAll(async () => {
  await egress?.close();
  await mock?.close();
});
beforeEach(() => {
  mock.reset();
  egress.forwarded.length = 0;
});
afterEach(async () => {
  for (const offer of offers.splice(0)) await offer.close();
  for (const driver of drivers.splice(0)) {
    await driver.close();
    // No orphan: neither the launcher nor the native binary it started (same process group).
    await waitUntil(() => !processGroupExists(driver.pid));
  }
  // Nothing tried to reach a host other than the mock.
  expect(egress.refused).toEqual([]);
});

function newDriver(
  onServerRequest?: (m: RpcMessage) => unknown,
  urls = { codexBaseUrl: mock.codexBaseUrl, issuerUrl: mock.issuer },
  prefix?: string[],
  model = "gpt-5.5",
): AppServerDriver {
  const configToml = codexConfigToml({ ...urls, model });
  const driver = new AppServerDriver({ codexPath, configToml, env: egress.env, onServerRequest, prefix });
  drivers.push(driver);
  return driver;
}

async function startThread(driver: AppServerDriver): Promise<string> {
  await driver.initialize();
  await driver.call("account/login/start", { type: "chatgptAuthTokens", accessToken: tokens.access_token, chatgptAccountId: "acct_demo", chatgptPlanType: "plus" });
  const login = await driver.waitForNotification("account/login/completed");
  expect(login.params).toMatchObject({ success: true, error: null });
  const started = await driver.call("thread/start", {
    ephemeral: true,
    approvalPolicy: "on-request",
    sandbox: "read-only",
    cwd: driver.workDir,
    dynamicTools: TOOLS,
  });
  return (started.thread as { id: string }).id;
}

/** thread/realtime/start with a real loopback offer; resolves with the offer and codex's sdp notification. */
async function startRealtime(driver: AppServerDriver, threadId: string): Promise<{ offer: string; answer: RpcMessage }> {
  const offer = await loopbackOffer();
  offers.push(offer);
  expect(await driver.call("thread/realtime/start", { threadId, outputModality: "audio", transport: { type: "webrtc", sdp: offer.sdp } })).toEqual({});
  return { offer: offer.sdp, answer: await driver.waitForNotification("thread/realtime/sdp") };
}

const sidebandFrame = (type: string) => (r: RecordedRequest) =>
  r.method === SIDEBAND_IN && r.path === SIDEBAND_PATH && (r.body as { type?: string } | undefined)?.type === type;

/** Polls a condition the OS gives no event for (a process group's last member going away). */
async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition still false");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

describe("codex app-server 0.171.0 against the mock, offline", () => {
  it("is the release our client version names (lib/upstream/client-version.json)", () => {
    expect(execFileSync(codexExecutable(), ["--version"], { encoding: "utf8" }).trim()).toBe(`codex-cli ${CLIENT_VERSION}`);
  });

  it("(the proxy catches it) without the offline keys, codex tries to reach chatgpt.com and the egress proxy refuses it", async () => {
    const driver = newDriver(undefined, { codexBaseUrl: REAL_CODEX_BASE_URL, issuerUrl: REAL_ISSUER_URL });
    await driver.initialize();
    await driver.call("account/login/start", { type: "chatgptAuthTokens", accessToken: tokens.access_token, chatgptAccountId: "acct_demo", chatgptPlanType: "plus" });
    expect(await egress.nextRefused()).toBe("CONNECT chatgpt.com:443");
    expect(egress.forwarded).toEqual([]);
    await driver.close();
    egress.refused.length = 0;
  });

  it("logs in with a mock token, starts a thread and a realtime session: answer SDP, sideband session.update", async () => {
    const driver = newDriver();
    const threadId = await startThread(driver);
    const { offer, answer } = await startRealtime(driver, threadId);
    expect(answer.params).toEqual({ threadId, sdp: expect.stringMatching(/^v=0\r\n/) });

    const call = await mock.waitForRequest((r) => r.path === "/backend-api/codex/realtime/calls" && r.status === 201);
    expect(call.body).toMatchObject({ sdp: offer });
    // Our direct route's default voice model (LWC_REALTIME_MODEL unset) is what this codex sends.
    expect(call.body).toMatchObject({ session: { type: "quicksilver", model: CODEX_REALTIME_MODEL } });
    expect(call.headers["openai-alpha"]).toBe("quicksilver=v1");
    expect(call.headers.authorization).toBe(`Bearer ${tokens.access_token}`);
    // Codex sends its provider's headers on the voice call too: our direct route sends the same version.
    expect(call.headers.version).toBe(CLIENT_VERSION);
    const update = await mock.waitForRequest(sidebandFrame("session.update"));
    expect(update.body).toMatchObject({ session: { type: "quicksilver" } });
    expect(mock.requests().some((r) => r.path === "/backend-api/wham/accounts/check" && r.status === 200)).toBe(true);

    // Nothing with the token is written into CODEX_HOME.
    for (const file of filesUnder(driver.codexHome)) expect(readFileSync(file).includes(tokens.access_token), file).toBe(false);

    await driver.call("thread/realtime/stop", { threadId });
    expect((await driver.waitForNotification("thread/realtime/closed")).params).toMatchObject({ reason: "requested" });
  });

  it("every IP address codex connects or sends to (traced with strace, DNS included) is the proxy's, also for a 127.0.0.1 upstream: HTTP, the realtime call and the sideband WebSocket", async () => {
    const traceDir = mkdtempSync(join(tmpdir(), "lwc-codex-strace-"));
    try {
      const trace = join(traceDir, "connect.log");
      const driver = newDriver(
        (message) => (message.method === "item/tool/call" ? { contentItems: [{ type: "inputText", text: "ok" }], success: true } : declineEverything(message)),
        undefined,
        // sendto/sendmsg too: musl's resolver sends a DNS query without connecting first.
        ["strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmsg,sendmmsg", "-o", trace],
      );
      const threadId = await startThread(driver);
      await startRealtime(driver, threadId);
      await mock.waitForRequest(sidebandFrame("session.update"));
      mock.codex.queueToolCalls([{ name: "get_current_time", arguments: {} }]);
      mock.codex.requestHandoff({ transcript: "What time is it?" });
      await mock.waitForRequest(sidebandFrame("conversation.handoff.append"), 20_000);
      await driver.close();

      const inet = readFileSync(trace, "utf8")
        .split("\n")
        .filter((line) => /sin6?_port=htons\(/.test(line));
      // The trace saw codex's own connections, so it is not silently empty; each one went to the
      // proxy (none straight to the mock), which is what lets the sandbox give codex no other way out.
      expect(inet.length).toBeGreaterThan(0);
      const elsewhere = inet.filter((line) => !(line.includes(`sin_port=htons(${egress.port})`) && line.includes('inet_addr("127.0.0.1")')));
      expect(elsewhere).toEqual([]);
      // Through it: the plain HTTP calls (absolute-form) and the sideband WebSocket (a CONNECT tunnel).
      const mockHost = new URL(mock.url).host;
      expect(new Set(egress.forwarded)).toEqual(new Set([`GET ${mockHost}`, `POST ${mockHost}`, `CONNECT ${mockHost}`]));
      expect(mock.requests().some((r) => r.path === "/backend-api/codex/realtime/calls")).toBe(true);
    } finally {
      rmSync(traceDir, { recursive: true, force: true });
    }
  });

  it("a handoff from the voice side runs get_current_time and save_note, and the result goes back on the sideband", async () => {
    const toolCalls: Record<string, unknown>[] = [];
    const driver = newDriver((message) => {
      if (message.method !== "item/tool/call") return declineEverything(message);
      toolCalls.push(message.params!);
      const text = message.params!.tool === "get_current_time" ? "It is 12:00 UTC." : "Saved the note.";
      return { contentItems: [{ type: "inputText", text }], success: true };
    });
    const threadId = await startThread(driver);
    await startRealtime(driver, threadId);
    await mock.waitForRequest(sidebandFrame("session.update"));

    mock.codex.queueToolCalls([
      { name: "get_current_time", arguments: {} },
      { name: "save_note", arguments: { text: "buy milk" } },
    ]);
    const cue = mock.codex.requestHandoff({ transcript: "What time is it? And note: buy milk." });
    expect(cue).toBeDefined();

    const handoff = await driver.waitFor((m) => m.method === "thread/realtime/itemAdded" && (m.params?.item as { type?: string })?.type === "handoff_request");
    expect(handoff.params!.item).toMatchObject({ handoff_id: cue!.handoffId, input_transcript: "What time is it? And note: buy milk." });
    await driver.waitForNotification("turn/completed", 20_000);
    expect(toolCalls.map((call) => [call.tool, call.arguments])).toEqual([
      ["get_current_time", {}],
      ["save_note", { text: "buy milk" }],
    ]);

    const append = await mock.waitForRequest(sidebandFrame("conversation.handoff.append"));
    expect(append.body).toMatchObject({ handoff_id: cue!.handoffId });
    const output = (append.body as { output_text: string }).output_text;
    expect(output).toContain("get_current_time: It is 12:00 UTC.");
    expect(output).toContain("save_note: Saved the note.");
  });

  it("for a model its catalog flags use_responses_lite, codex speaks the lite dialect; the mock records each request's dialect", async () => {
    const driver = newDriver(undefined, undefined, undefined, "gpt-6.1-sol");
    const threadId = await startThread(driver);
    mock.codex.queueToolCalls([{ name: "get_current_time", arguments: {} }]);
    await driver.call("turn/start", { threadId, input: [{ type: "text", text: "What time is it?", text_elements: [] }] });
    await driver.waitForNotification("turn/completed", 20_000);

    const requests = mock.requests({ path: "/backend-api/codex/responses" });
    expect(requests.map((r) => [r.status, r.dialect])).toEqual([
      [200, "lite"],
      [200, "lite"],
    ]);
    const [first] = requests;
    expect(first!.headers["x-openai-internal-codex-responses-lite"]).toBe("true");
    const body = first!.body as Record<string, unknown> & { input: Record<string, unknown>[] };
    // No top-level instructions or tools: the tools come first in the input, the instructions next.
    expect(Object.hasOwn(body, "instructions")).toBe(false);
    expect(Object.hasOwn(body, "tools")).toBe(false);
    expect(body).toMatchObject({ parallel_tool_calls: false, stream: true, store: false, reasoning: { context: "all_turns" } });
    // codex groups its function and custom tools in one namespace named "functions".
    expect(body.input[0]).toMatchObject({ type: "additional_tools", role: "developer", tools: [{ type: "namespace", name: "functions", description: "" }] });
    expect(offeredToolNames(body).sort()).toEqual(["apply_patch", "get_current_time", "save_note"]);
    expect(body.input[1]).toMatchObject({ type: "message", role: "developer", content: [{ type: "input_text" }] });

    // The same codex speaks the plain dialect to gpt-5.5, which the catalog does not flag.
    mock.reset();
    const plainDriver = newDriver();
    const plainThread = await startThread(plainDriver);
    await plainDriver.call("turn/start", { threadId: plainThread, input: [{ type: "text", text: "Hello.", text_elements: [] }] });
    await plainDriver.waitForNotification("turn/completed", 20_000);
    const plain = mock.requests({ path: "/backend-api/codex/responses" });
    expect(plain.map((r) => [r.status, r.dialect])).toEqual([[200, "plain"]]);
    expect(plain[0]!.headers["x-openai-internal-codex-responses-lite"]).toBeUndefined();
    expect(plain[0]!.body).toMatchObject({ parallel_tool_calls: true, tools: expect.any(Array) });
  });

  it("lockdown: the model is offered only our tools (and apply_patch), and a shell command that would create a file is refused", async () => {
    const target = join(process.env.TMPDIR ?? "/tmp", `lwc-lockdown-${process.pid}-${Date.now()}`);
    const driver = newDriver();
    const threadId = await startThread(driver);
    mock.codex.queueToolCalls([
      { name: "exec_command", arguments: { cmd: `touch ${target}` } },
      { name: "shell", arguments: { command: ["touch", target] } },
      { name: "shell_command", arguments: { command: `touch ${target}` } },
    ]);
    await driver.call("turn/start", { threadId, input: [{ type: "text", text: "Create the file, please.", text_elements: [] }] });
    const completed = await driver.waitForNotification("turn/completed", 20_000);
    expect((completed.params!.turn as { status: string }).status).toBe("completed");

    const requests = mock.requests({ path: "/backend-api/codex/responses" });
    expect(requests.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // apply_patch comes from the model's metadata, not from configuration; the read-only sandbox
    // and the declined approvals stop it (docs/agent-voice-lockdown.md).
    expect(offeredToolNames(requests[0]!.body).sort()).toEqual(["apply_patch", "get_current_time", "save_note"]);

    const outputs = (requests.at(-1)!.body as { input: Record<string, unknown>[] }).input.filter((item) => item.type === "function_call_output");
    expect(outputs.map((item) => item.output)).toEqual(["unsupported call: exec_command", "unsupported call: shell", "unsupported call: shell_command"]);
    // No approval was even asked for, and the file does not exist.
    expect(driver.messages.filter((m) => m.method?.includes("requestApproval"))).toEqual([]);
    expect(existsSync(target)).toBe(false);
  });

  it("lockdown: apply_patch (offered by the model's metadata) asks for approval, is declined, and writes nothing", async () => {
    const outside = join(process.env.TMPDIR ?? "/tmp", `lwc-lockdown-patch-${process.pid}-${Date.now()}`);
    const driver = newDriver();
    const threadId = await startThread(driver);
    const patch = (path: string) => `*** Begin Patch\n*** Add File: ${path}\n+written by the agent\n*** End Patch\n`;
    mock.codex.queueToolCalls([
      { name: "apply_patch", input: patch(outside) },
      { name: "apply_patch", input: patch("inside.txt") },
    ]);
    await driver.call("turn/start", { threadId, input: [{ type: "text", text: "Write the files, please.", text_elements: [] }] });
    await driver.waitForNotification("turn/completed", 20_000);

    const requests = mock.requests({ path: "/backend-api/codex/responses" });
    const outputs = (requests.at(-1)!.body as { input: Record<string, unknown>[] }).input.filter((item) => String(item.type).endsWith("_output"));
    expect(outputs.map((item) => [item.type, item.output])).toEqual([
      ["custom_tool_call_output", "patch rejected by user"],
      ["custom_tool_call_output", "patch rejected by user"],
    ]);
    // Each patch asked for approval (read-only sandbox) and got our decline.
    expect(driver.messages.filter((m) => m.method === "item/fileChange/requestApproval")).toHaveLength(2);
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(join(driver.workDir, "inside.txt"))).toBe(false);
  });
});
