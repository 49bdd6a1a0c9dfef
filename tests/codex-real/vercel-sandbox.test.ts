/**
 * The real `codex app-server` 0.169.0 in a fake Vercel Sandbox VM, driven through the real
 * `@vercel/sandbox` SDK and the app's seam, offline: the VM shows the pinned codex read-only (its
 * image), a snapshot holds the session relay, codex's home is written into the VM (0600), the
 * network policy lets it reach only the mock (loopback, through the fake's egress), and the relay
 * is reached at the url the API reports for its port. A turn calls a dynamic tool; a second
 * client answers it after the first went away. Close, then stop: no sandbox, VM or process left.
 */
import { Sandbox } from "@vercel/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codexConfigToml } from "@/lib/agent-voice/codex-config";
import { readRelayLines } from "@/lib/agent-voice/relay/relay-client";
import { newRelayToken } from "@/lib/agent-voice/relay/relay-token";
import { SESSION_RELAY_SCRIPT, sessionRelayCommand } from "@/lib/agent-voice/relay/session-relay-script";
import { vercelSandboxApi } from "@/lib/agent-voice/vercel-sandbox-api";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { signInThroughMock, type MockTokenSet } from "@/mock-upstream/sign-in";
import { FAKE_VERCEL_PROJECT_ID, startFakeVercelSandbox, type FakeVercelSandbox } from "@/mock-upstream/vercel-sandbox/server";
import { processAlive, waitUntil } from "@/test-support/session-relay-process";
import { codexExecutable, codexReadOnlyPaths } from "./codex-binary";
import { RelayRpc } from "./relay-rpc";

const RELAY_PORT = 8080;
const CODEX_HOME = "/home/vercel-sandbox/.codex";
let mock: MockUpstream;
let tokens: MockTokenSet;
let fake: FakeVercelSandbox;
let api: ReturnType<typeof vercelSandboxApi>;

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  tokens = await signInThroughMock(mock);
  const [codexPackages] = codexReadOnlyPaths(codexExecutable());
  fake = await startFakeVercelSandbox({ imagePaths: [codexPackages!], egress: [new URL(mock.url).host] });
  api = vercelSandboxApi(fake.url, { VERCEL_TOKEN: fake.token, VERCEL_TEAM_ID: fake.teamId, VERCEL_PROJECT_ID: FAKE_VERCEL_PROJECT_ID });
}, 120_000);
afterAll(async () => {
  await fake?.close();
  await mock?.close();
});

describe("codex in a fake Vercel Sandbox VM, behind the session relay", () => {
  it("logs in, runs a turn whose tool call a later client answers, and ends without a trace", async () => {
    const base = await Sandbox.create({ ...api, timeout: 120_000, persistent: false, tags: { app: "lwc-codex-test", role: "snapshot" } });
    await base.mkDir("/opt/lwc");
    await base.writeFiles([{ path: "/opt/lwc/session-relay.cjs", content: Buffer.from(SESSION_RELAY_SCRIPT) }]);
    const snapshot = await base.snapshot();

    const sandbox = await Sandbox.create({
      ...api,
      source: { type: "snapshot", snapshotId: snapshot.snapshotId },
      ports: [RELAY_PORT],
      timeout: 120_000,
      persistent: false,
      networkPolicy: { allow: ["127.0.0.1"], subnets: { deny: ["169.254.169.254/32"] } },
      tags: { app: "lwc-codex-test", role: "session" },
    });
    const vmPid = fake.stats().sandboxes.find((entry) => entry.name === sandbox.name)!.vmPid!;
    const config = codexConfigToml({ codexBaseUrl: mock.codexBaseUrl, issuerUrl: mock.issuer, model: "gpt-5.5" });
    await sandbox.mkDir(CODEX_HOME);
    await sandbox.writeFiles([{ path: `${CODEX_HOME}/config.toml`, content: Buffer.from(config), mode: 0o600 }]);

    const { token, sha256 } = newRelayToken();
    const [node, ...args] = sessionRelayCommand(
      { node: "node", scriptPath: "/opt/lwc/session-relay.cjs", listen: `0.0.0.0:${RELAY_PORT}`, tokenSha256: sha256 },
      [codexExecutable(), "app-server"],
    );
    const command = await sandbox.runCommand({ cmd: node!, args, env: { CODEX_HOME }, detached: true });
    let stdout = "";
    for await (const log of command.logs()) {
      if (log.stream === "stdout") stdout += log.data;
      if (stdout.includes("\n")) break;
    }
    expect(JSON.parse(stdout)).toMatchObject({ type: "listening" });
    const address = { url: sandbox.routes.find((route) => route.port === RELAY_PORT)!.url };

    const first = new RelayRpc({ address, token, idPrefix: "a" });
    await first.call("initialize", { clientInfo: { name: "lwc_tests", title: null, version: "0.0.0" }, capabilities: { experimentalApi: true } });
    await first.notify("initialized");
    await first.call("account/login/start", { type: "chatgptAuthTokens", accessToken: tokens.access_token, chatgptAccountId: "acct_demo", chatgptPlanType: "plus" });
    expect((await first.waitForNotification("account/login/completed")).params).toMatchObject({ success: true });
    const started = await first.call("thread/start", {
      ephemeral: true,
      approvalPolicy: "on-request",
      sandbox: "read-only",
      cwd: "/vercel/sandbox",
      dynamicTools: [{ type: "function", name: "save_note", description: "Save a note.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }],
    });
    const threadId = (started.thread as { id: string }).id;
    const seq = first.channel.lastSeq();
    first.channel.detach();

    mock.codex.queueToolCalls([{ name: "save_note", arguments: { text: "from the VM" } }]);
    const sender = new RelayRpc({ address, token, idPrefix: "s", follow: false });
    await sender.send({ id: "s-1", method: "turn/start", params: { threadId, input: [{ type: "text", text: "Save it.", text_elements: [] }] } });
    for (;;) {
      const lines = await readRelayLines(address, token, seq);
      if (lines.some((entry) => (JSON.parse(entry.line) as { method?: string }).method === "item/tool/call")) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const second = new RelayRpc({ address, token, idPrefix: "b", after: seq, epoch: first.channel.epoch() });
    const toolCall = await second.waitFor((m) => m.method === "item/tool/call");
    expect(toolCall.params).toMatchObject({ tool: "save_note", arguments: { text: "from the VM" } });
    await second.send({ id: toolCall.id, result: { contentItems: [{ type: "inputText", text: "Saved in the VM." }], success: true } });
    const completed = await second.waitForNotification("turn/completed");
    expect((completed.params!.turn as { status: string }).status).toBe("completed");
    // codex's calls reached the mock through the fake's egress, from inside the VM.
    expect(mock.requests({ path: "/backend-api/codex/responses" }).length).toBeGreaterThanOrEqual(2);

    expect(await second.channel.close()).toMatchObject({ reason: "exited", why: "closed" });
    expect((await command.wait()).exitCode).toBe(0);
    sender.channel.detach();
    await sandbox.stop();
    expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
    await waitUntil(() => !processAlive(vmPid));
  });
});
