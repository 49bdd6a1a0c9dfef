/**
 * Voice and agent voice for a Sign in with ChatGPT session: plan usage covers text replies only,
 * so every voice route answers 403 not_available_with_siwc before anything is asked upstream or
 * any process starts. A device-code session on the same server still gets past that check.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { referenceConfirmTool, referenceTools } from "@/lib/agent-voice/tools";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { createFakeAppServer, NODE_MEMORY_MB, type FakeAppServer } from "@/test-support/fake-app-server/control";
import { OFFER_SDP } from "./app-server-harness";
import { createEvidence, findLeakedTokens, signIn, startHarness, type Harness, type TestClient } from "./harness";
import { siwcHandlerOptions, signInWithSiwc } from "./siwc-proxy-support";

const evidence = createEvidence();
let mock: MockUpstream;
let fake: FakeAppServer;
let harness: Harness;
let siwc: TestClient;

beforeAll(async () => {
  mock = await startMockUpstream();
  fake = await createFakeAppServer();
  harness = await startHarness({
    sharedMock: mock,
    evidence,
    handler: siwcHandlerOptions(mock, {
      realtime: {
        chatgptUrl: mock.url,
        rateLimit: false,
        // No spare process: any process in the fake's log was started for a request.
        agentVoice: { command: fake.command, tools: referenceTools, keepWarmProcess: false, sandbox: "off", limits: { memoryMb: NODE_MEMORY_MB } },
      },
      confirmTool: referenceConfirmTool,
    }),
  });
  siwc = await signInWithSiwc(harness);
});
afterAll(async () => {
  await harness?.provider.close();
  await harness?.close();
  await mock?.close();
  await fake?.remove();
});

const voiceCalls = () => mock.requests().filter((request) => request.path.includes("/realtime"));
const spawned = async () => (await fake.log()).filter((entry) => entry.type === "spawned");

function expectNotAvailable(reply: { status: number; json(): Record<string, unknown> }, what: RegExp) {
  expect(reply.status).toBe(403);
  expect(reply.json()).toEqual({ error: "not_available_with_siwc", message: expect.stringMatching(what) });
}

describe("voice routes for a SIWC session", () => {
  it("POST /realtime: 403 not_available_with_siwc, nothing sent upstream", async () => {
    const reply = await siwc.post("/realtime", { sdp: OFFER_SDP, session: { voice: "maple" } });
    expectNotAvailable(reply, /^Voice is not available/);
    expect(voiceCalls()).toEqual([]);
  });

  it("POST /realtime/app-server: 403 not_available_with_siwc, no process started", async () => {
    const reply = await siwc.post("/realtime/app-server", { sdp: OFFER_SDP, session: { voice: "cove", model: "gpt-5.5" } });
    expectNotAvailable(reply, /^Agent voice is not available/);
    expect(await spawned()).toEqual([]);
    expect(voiceCalls()).toEqual([]);
  });

  it.each([
    ["GET", "/realtime/app-server/status"],
    ["GET", "/realtime/app-server/notes"],
    ["GET", "/realtime/app-server/some-id/events"],
    ["POST", "/realtime/app-server/some-id/confirm"],
    ["DELETE", "/realtime/app-server/some-id"],
  ])("%s %s: 403 not_available_with_siwc", async (method, path) => {
    const reply =
      method === "POST"
        ? await siwc.post(path, { callId: "c1", confirmation: { approved: true } })
        : await siwc.request(method, path);
    expectNotAvailable(reply, /^Agent voice is not available/);
  });

  it("a device-code session on the same server is not refused", async () => {
    const device = harness.client();
    await signIn(harness, device);
    const status = await device.get("/realtime/app-server/status");
    expect(status.status).toBe(200);
    const missing = await device.request("DELETE", "/realtime/app-server/some-id");
    expect(missing.json()).toEqual({ error: "realtime_session_not_found" });
  });

  it("no token or prompt text in any body or log line", () => {
    expect(findLeakedTokens(evidence)).toEqual([]);
  });
});
