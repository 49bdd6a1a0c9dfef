/**
 * The schema check the fast tests rely on (test-support/fake-app-server/protocol-schema.ts, built
 * from `codex app-server generate-json-schema --experimental`), held against the real binary: a
 * whole real session, both directions, passes it; messages the schema rejects fail it. So when a
 * new codex changes the protocol under our messages, the check (and the fast tests) fail.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { codexConfigToml } from "@/lib/agent-voice/codex-config";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { signInThroughMock } from "@/mock-upstream/sign-in";
import type { FakeLogEntry } from "@/test-support/fake-app-server/control";
import { loadProtocolValidator, type ProtocolValidator } from "@/test-support/fake-app-server/protocol-schema";
import { AppServerDriver, declineEverything } from "./app-server-driver";
import { codexExecutable } from "./codex-binary";
import { loopbackOffer } from "./loopback-offer";

let mock: MockUpstream;
let validator: ProtocolValidator;
let driver: AppServerDriver | undefined;

beforeAll(async () => {
  codexExecutable();
  validator = loadProtocolValidator();
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
}, 120_000);
afterAll(async () => {
  await driver?.close();
  await mock?.close();
});

const PID = 1;
const asLog = (entries: { dir: "in" | "out"; message: Record<string, unknown> }[]): FakeLogEntry[] => entries.map((entry) => ({ pid: PID, ...entry }));

it("a real session (login, thread with tools, realtime start, a tool call, an approval, stop) passes the schema check", async () => {
  const { access_token: accessToken } = await signInThroughMock(mock);
  driver = new AppServerDriver({
    codexPath: codexExecutable(),
    configToml: codexConfigToml({ codexBaseUrl: mock.codexBaseUrl, issuerUrl: mock.issuer, model: "gpt-5.5" }),
    onServerRequest: (message) =>
      message.method === "item/tool/call" ? { contentItems: [{ type: "inputText", text: "12:00" }], success: true } : declineEverything(message),
  });
  await driver.initialize();
  await driver.call("account/login/start", { type: "chatgptAuthTokens", accessToken, chatgptAccountId: "acct_demo", chatgptPlanType: "plus" });
  await driver.waitForNotification("account/login/completed");
  const started = await driver.call("thread/start", {
    ephemeral: true,
    approvalPolicy: "on-request",
    sandbox: "read-only",
    cwd: driver.workDir,
    dynamicTools: [{ type: "function", name: "get_current_time", description: "time", inputSchema: { type: "object", properties: {} } }],
  });
  const threadId = (started.thread as { id: string }).id;
  const offer = await loopbackOffer();
  await driver.call("thread/realtime/start", { threadId, outputModality: "audio", transport: { type: "webrtc", sdp: offer.sdp } });
  await driver.waitForNotification("thread/realtime/sdp");
  await offer.close();
  mock.codex.queueToolCalls([{ name: "get_current_time", arguments: {} }, { name: "apply_patch", input: "*** Begin Patch\n*** Add File: x.txt\n+x\n*** End Patch\n" }]);
  await driver.call("turn/start", { threadId, input: [{ type: "text", text: "go", text_elements: [] }] });
  await driver.waitForNotification("turn/completed", 20_000);
  await driver.call("thread/realtime/stop", { threadId });
  await driver.waitForNotification("thread/realtime/closed");

  const methods = new Set(driver.transcript.map((entry) => entry.message.method));
  for (const method of ["item/tool/call", "item/fileChange/requestApproval", "thread/realtime/started", "thread/realtime/sdp", "turn/completed"]) {
    expect(methods, method).toContain(method);
  }
  expect(validator.check(asLog(driver.transcript))).toEqual([]);
});

it("fails on messages the schema rejects: a missing field, a wrong type, an unknown method, a bad answer", () => {
  const problems = validator.check(
    asLog([
      // Our request without the required outputModality.
      { dir: "in", message: { id: 7, method: "thread/realtime/start", params: { threadId: "t" } } },
      // A tool answer whose contentItems is not a list.
      { dir: "out", message: { id: 0, method: "item/tool/call", params: { threadId: "t", turnId: "u", callId: "c", namespace: null, tool: "x", arguments: {} } } },
      { dir: "in", message: { id: 0, result: { contentItems: "12:00", success: true } } },
      // A decision the protocol does not know.
      { dir: "out", message: { id: 1, method: "item/fileChange/requestApproval", params: { threadId: "t", turnId: "u", itemId: "i", startedAtMs: 1 } } },
      { dir: "in", message: { id: 1, result: { decision: "nope" } } },
      // A method that does not exist.
      { dir: "out", message: { method: "thread/realtime/appendHandoff", params: {} } },
    ]),
  );
  expect(problems).toHaveLength(4);
  expect(problems[0]).toMatch(/request thread\/realtime\/start.*outputModality/);
  expect(problems[1]).toMatch(/result of item\/tool\/call/);
  expect(problems[2]).toMatch(/result of item\/fileChange\/requestApproval/);
  expect(problems[3]).toMatch(/thread\/realtime\/appendHandoff: method not in the schema/);
});
