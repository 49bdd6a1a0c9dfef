/**
 * A start the provider refuses, with the real codex (issue 32, finding 8): an offer with no audio
 * section used to spawn codex (about 80 MB) and hold it for the whole 20 s start timeout. Now such
 * an offer is refused before anything is spawned, and an offer the provider refuses ends its codex
 * process at once: the answer is a fixed sentence, and comes with the process already gone.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { referenceConfirmTool, referenceTools } from "@/lib/agent-voice/tools";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { signIn, startHarness, type Harness } from "@/tests/integration/harness";
import { codexExecutable, codexReadOnlyPaths } from "./codex-binary";
import { descendantsOf } from "./served-app";

/** An offer with an audio section but nothing to connect with (no ICE credentials, no DTLS fingerprint). */
const UNANSWERABLE_OFFER = "v=0\r\no=- 4611 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n";

let mock: MockUpstream;
let wrapperDir: string;
let harness: Harness | undefined;

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  const codexPath = codexExecutable();
  wrapperDir = mkdtempSync(join(tmpdir(), "lwc-codex-wrapper-"));
  writeFileSync(join(wrapperDir, "codex"), `#!/bin/sh\nexec '${codexPath}' "$@"\n`);
  chmodSync(join(wrapperDir, "codex"), 0o755);
  harness = await startHarness({
    sharedMock: mock,
    handler: {
      realtime: {
        agentVoice: {
          command: join(wrapperDir, "codex"),
          tools: referenceTools,
          keepWarmProcess: false,
          sandboxReadOnlyPaths: codexReadOnlyPaths(codexPath),
          // Longer than the test may run: an answer that waited for it fails the test.
          startTimeoutMs: 120_000,
        },
      },
      confirmTool: referenceConfirmTool,
    },
  });
}, 120_000);

afterAll(async () => {
  await harness?.close();
  rmSync(wrapperDir, { recursive: true, force: true });
  await mock?.close();
});

afterEach(() => mock.reset());

it("an offer with no audio section is refused (400) before any codex process starts", async () => {
  const client = harness!.client();
  await signIn(harness!, client);
  const reply = await client.post("/realtime/app-server", { sdp: "v=0\r\ns=-\r\n", session: { voice: "cove" } });
  expect(reply.status).toBe(400);
  expect(reply.json()).toEqual({ error: "invalid_realtime_request", message: "sdp: `sdp` must offer an audio section (m=audio)" });
  expect(descendantsOf(process.pid)).toEqual([]);
  expect(mock.requests({ path: "/backend-api/codex/realtime/calls" })).toEqual([]);
});

it("an offer the provider refuses: 502 with a fixed sentence, its codex process already gone when the answer comes", async () => {
  const client = harness!.client();
  await signIn(harness!, client);
  const reply = await client.post("/realtime/app-server", { sdp: UNANSWERABLE_OFFER, session: { voice: "cove" } });
  expect(reply.status).toBe(502);
  expect(reply.json()).toEqual({ error: "realtime_app_server_start_failed", message: "The voice service refused the call. Try again shortly." });
  expect(mock.requests({ path: "/backend-api/codex/realtime/calls" }).map((call) => call.status)).toEqual([400]);
  expect(descendantsOf(process.pid)).toEqual([]);
  // What the browser was not told is in the log line.
  const log = harness!.evidence.logs.map((line) => line.message).join("\n");
  expect(log).toContain("realtime app-server start failed: the provider refused or failed the realtime call");
});
