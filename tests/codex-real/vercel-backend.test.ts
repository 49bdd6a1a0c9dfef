/**
 * Agent voice's Vercel Sandbox backend (lib/agent-voice/sandbox/vercel/) against the fake Vercel
 * Sandbox API, through the real `@vercel/sandbox` SDK and the app's seam, with the real codex:
 * the snapshot (`npm run agent-voice:snapshot`'s script, with codex linked from the fake's image:
 * the fake has no way to npm's registry), a start that answers
 * `initialize` through the channel, a reopen from another process with only the handle and the
 * token, stop, a refused create, a sandbox stopped mid-call, and the sweep by tag. Every test ends
 * with no live sandbox, no VM, and none of the processes a VM ran (by pid).
 */
import { execFile, spawn } from "node:child_process";
import { processTree } from "./served-app";
import { join } from "node:path";
import { promisify } from "node:util";
import { Sandbox } from "@vercel/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { codexConfigToml, codexUpstreamUrls } from "@/lib/agent-voice/codex-config";
import type { RelayLine } from "@/lib/agent-voice/relay/relay-client";
import { VercelSandboxError } from "@/lib/agent-voice/sandbox/vercel/errors";
import { VM_CODEX_HOME, VM_RELAY_SCRIPT } from "@/lib/agent-voice/sandbox/vercel/layout";
import { providerNetworkPolicy } from "@/lib/agent-voice/sandbox/vercel/network-policy";
import { reopenVercelSandbox } from "@/lib/agent-voice/sandbox/vercel/reopen";
import { startVercelSandbox } from "@/lib/agent-voice/sandbox/vercel/start";
import { stopVercelSandbox, sweepOrphanedSandboxes } from "@/lib/agent-voice/sandbox/vercel/stop";
import { vercelSandboxApi } from "@/lib/agent-voice/vercel-sandbox-api";
import { CLIENT_VERSION } from "@/lib/upstream/config";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { signInThroughMock, type MockTokenSet } from "@/mock-upstream/sign-in";
import { FAKE_VERCEL_PROJECT_ID, startFakeVercelSandbox, type FakeVercelSandbox } from "@/mock-upstream/vercel-sandbox/server";
import { processAlive, waitUntil } from "@/test-support/session-relay-process";
import { codexExecutable, codexReadOnlyPaths } from "./codex-binary";

const REOPEN_PROCESS = join(process.cwd(), "test-support", "vercel-reopen-process.ts");
const SNAPSHOT_SCRIPT = join(process.cwd(), "scripts", "agent-voice-snapshot.ts");
let mock: MockUpstream;
let tokens: MockTokenSet;
let fake: FakeVercelSandbox;
let api: ReturnType<typeof vercelSandboxApi>;
let credentials: Record<string, string>;
let snapshotId: string;
/** Host pids of every VM and of every process a VM ran, seen while it ran: none may be left. */
const seenPids = new Set<number>();

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  tokens = await signInThroughMock(mock);
  const [codexPackages] = codexReadOnlyPaths(codexExecutable());
  fake = await startFakeVercelSandbox({ imagePaths: [codexPackages!], egress: [new URL(mock.url).host] });
  credentials = { LWC_VERCEL_SANDBOX_API_URL: fake.url, VERCEL_TOKEN: fake.token, VERCEL_TEAM_ID: fake.teamId, VERCEL_PROJECT_ID: FAKE_VERCEL_PROJECT_ID };
  api = vercelSandboxApi(fake.url, credentials);
  snapshotId = await snapshotCommand(["--codex-path", codexExecutable()]);
}, 120_000);

/** What a child process of the tests gets: PATH and the fake's address and credentials, nothing else. */
const childEnv = () => ({ PATH: process.env.PATH ?? "", ...credentials }) as unknown as NodeJS.ProcessEnv;

/** `npm run agent-voice:snapshot -- <args>` against the fake: the snapshot id from the line it prints. */
async function snapshotCommand(args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--conditions=react-server", "--import", "tsx", SNAPSHOT_SCRIPT, ...args], {
    env: childEnv(),
  });
  const printed = /^LWC_VERCEL_SANDBOX_SNAPSHOT=(snap_\w+)$/m.exec(stdout);
  expect(printed, stdout).not.toBeNull();
  return printed![1]!;
}

afterAll(async () => {
  await fake?.close();
  await mock?.close();
});

afterEach(async () => {
  // Not fake.reset(): that forgets the snapshot too.
  for (const sandbox of fake.stats().sandboxes) if (sandbox.status === "running") await stopVercelSandbox(api, { sandboxId: sandbox.name });
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  await waitUntil(() => [...seenPids].every((pid) => !processAlive(pid)));
});

const codexInput = () => ({ codexBaseUrl: mock.codexBaseUrl, issuerUrl: mock.issuer, model: "gpt-5.5" });

/** The VM's processes (bwrap, init, the relay, codex); each remembered for the after-each check. */
function vmProcesses(sandboxId: string) {
  const vmPid = fake.stats().sandboxes.find((entry) => entry.name === sandboxId)?.vmPid;
  expect(vmPid).toBeGreaterThan(0);
  const tree = processTree(vmPid!);
  for (const { pid } of tree) seenPids.add(pid);
  return tree;
}

function start(options: { onLine?: (line: RelayLine) => void; snapshotId?: string | undefined; reconnectForMs?: number } = {}) {
  return startVercelSandbox({
    api,
    snapshotId: "snapshotId" in options ? options.snapshotId : snapshotId,
    vcpus: 1,
    timeoutMs: 120_000,
    deploy: "test",
    networkPolicy: providerNetworkPolicy(codexUpstreamUrls(codexInput())),
    codexHome: { configToml: codexConfigToml(codexInput()), authJson: JSON.stringify({ auth_mode: "chatgpt", OPENAI_API_KEY: null, tokens: { id_token: tokens.id_token, access_token: tokens.access_token, refresh_token: tokens.refresh_token, account_id: "acct_demo" }, last_refresh: new Date().toISOString() }) },
    ...(options.onLine ? { onLine: options.onLine } : {}),
    relay: { heartbeatMs: 500 },
    channel: { heartbeatTimeoutMs: 2_000, reconnectForMs: options.reconnectForMs ?? 10_000 },
  });
}

/** Lines codex wrote, and a way to wait for the answer to one request id. */
function collector() {
  const lines: RelayLine[] = [];
  const answered = (id: string) =>
    waitUntil(() => lines.some((line) => (JSON.parse(line.line) as { id?: unknown }).id === id)).then(
      () => JSON.parse(lines.find((line) => (JSON.parse(line.line) as { id?: unknown }).id === id)!.line) as Record<string, unknown>,
    );
  return { lines, onLine: (line: RelayLine) => lines.push(line), answered };
}

/** Another instance, as a process of its own: reopens with the handle and token, asks codex one thing. */
function reopenElsewhere(job: unknown): Promise<{ code: number | null; output: string; pid: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", REOPEN_PROCESS], {
      env: childEnv(),
      stdio: ["pipe", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => (output += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, output: output.trim(), pid: child.pid! }));
    child.stdin.end(JSON.stringify(job));
  });
}

describe("the Vercel Sandbox backend, against the fake API with the real codex", () => {
  it("starts a sandbox from the snapshot whose codex answers initialize through the channel; its home is private; the handle is plain JSON without the token", async () => {
    const codex = collector();
    const { handle, token, channel } = await start({ onLine: codex.onLine });
    expect(JSON.parse(JSON.stringify(handle))).toEqual(handle);
    expect(Object.keys(handle).sort()).toEqual(["kind", "relayEpoch", "relayUrl", "sandboxId"]);
    expect(JSON.stringify(handle)).not.toContain(token);
    // The url the API reported for the relay's port, not the SDK's *.vercel.run name.
    expect(handle.relayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    await channel.send(JSON.stringify({ id: "a-1", method: "initialize", params: { clientInfo: { name: "lwc_tests", title: null, version: "0.0.0" }, capabilities: { experimentalApi: true } } }));
    const initialized = await codex.answered("a-1");
    expect(initialized.result).toMatchObject({ userAgent: expect.stringContaining(CLIENT_VERSION) as unknown });
    // A turn: the network policy lets codex reach the provider (the mock), with the login from auth.json.
    await channel.send(JSON.stringify({ method: "initialized" }));
    await channel.send(JSON.stringify({ id: "a-2", method: "thread/start", params: { ephemeral: true, approvalPolicy: "on-request", sandbox: "read-only", cwd: "/vercel/sandbox" } }));
    const threadId = ((await codex.answered("a-2")).result as { thread: { id: string } }).thread.id;
    const before = mock.requests({ path: "/backend-api/codex/responses" }).length;
    await channel.send(JSON.stringify({ id: "a-3", method: "turn/start", params: { threadId, input: [{ type: "text", text: "Hello.", text_elements: [] }] } }));
    await waitUntil(() => codex.lines.some((line) => (JSON.parse(line.line) as { method?: string }).method === "turn/completed"), 20_000);
    expect(mock.requests({ path: "/backend-api/codex/responses" }).length).toBeGreaterThan(before);

    // The relay and codex run in the VM (bwrap, its init, the relay, codex's launcher and binary).
    const processes = vmProcesses(handle.sandboxId);
    expect(processes.some((entry) => entry.cmdline.includes(VM_RELAY_SCRIPT))).toBe(true);
    expect(processes.filter((entry) => entry.cmdline.includes("app-server")).length).toBeGreaterThanOrEqual(2);

    const sandbox = await Sandbox.get({ ...api, name: handle.sandboxId, resume: false });
    expect(sandbox.networkPolicy).toEqual({ allow: ["127.0.0.1"], subnets: { deny: ["169.254.169.254/32"] } });
    expect(fake.stats().sandboxes.find((entry) => entry.name === handle.sandboxId)!.tags).toEqual({ app: "lwc-agent-voice", deploy: "test" });
    const modes = await sandbox.runCommand("stat", ["-c", "%a %n", VM_CODEX_HOME, `${VM_CODEX_HOME}/config.toml`, `${VM_CODEX_HOME}/auth.json`]);
    expect(await modes.stdout()).toBe(`700 ${VM_CODEX_HOME}\n600 ${VM_CODEX_HOME}/config.toml\n600 ${VM_CODEX_HOME}/auth.json\n`);
    channel.detach();

    // Another instance: a process of its own, with its own Sandbox API client, the handle and the token.
    const elsewhere = await reopenElsewhere({ handle, token, after: codex.lines.at(-1)!.seq });
    expect(elsewhere.code, elsewhere.output).toBe(0);
    // codex holds the login from the auth.json written into its home: no login call was made.
    expect(JSON.parse(elsewhere.output)).toMatchObject({ id: "other-instance-1", result: { account: { type: "chatgpt" } } });
    expect(fake.stats().live).toBe(1);

    await stopVercelSandbox(api, handle);
    expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
    await waitUntil(() => processes.every(({ pid }) => !processAlive(pid)));
    // Stopping again is a no-op; a reopen now says the sandbox ended, and boots nothing.
    await stopVercelSandbox(api, handle);
    const reopened = await reopenVercelSandbox(api, handle, token).catch((error: unknown) => error);
    expect(reopened).toBeInstanceOf(VercelSandboxError);
    expect(reopened).toMatchObject({ failure: "ended", message: "The agent's sandbox has ended." });
    // One the API no longer knows (404): ended too, and a stop of it is a no-op.
    await expect(reopenVercelSandbox(api, { ...handle, sandboxId: "sbx-gone" }, token)).rejects.toMatchObject({ failure: "ended", detail: "get: the Sandbox API answered 404" });
    await stopVercelSandbox(api, { sandboxId: "sbx-gone" });
    expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  });

  it("a create refused with 429 is a clear error with a fixed sentence (no address, path or token), and leaves nothing; no snapshot set: another", async () => {
    await fetch(`${fake.url}/__fake/fail-create`, { method: "POST", body: JSON.stringify({ status: 429, times: 1, retryAfter: 60 }) });
    const refused = await start().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(VercelSandboxError);
    const error = refused as VercelSandboxError;
    expect(error.failure).toBe("refused");
    expect(error.message).toBe("Vercel Sandbox refused to start another sandbox now. Try again shortly.");
    expect(error.detail).toBe("create: the Sandbox API answered 429 too_many_requests");
    for (const secret of [fake.token, fake.url, new URL(fake.url).host, "/root", "/tmp", tokens.access_token]) {
      expect(`${error.message} ${error.detail}`).not.toContain(secret);
    }
    const known = fake.stats().sandboxes.length;
    expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });

    const unset = await start({ snapshotId: undefined }).catch((failure: unknown) => failure);
    expect(unset).toMatchObject({ failure: "not_configured", message: "No Vercel Sandbox snapshot is configured for agent voice." });
    const missing = await start({ snapshotId: "snap_missing" }).catch((failure: unknown) => failure);
    expect(missing).toMatchObject({ failure: "snapshot_missing", message: "The agent's Vercel Sandbox snapshot does not exist." });
    expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
    expect(fake.stats().sandboxes).toHaveLength(known);
  });

  it("a snapshot without the relay: the start fails with its sentence and stops the sandbox it made", async () => {
    const empty = await Sandbox.create({ ...api, timeout: 60_000, persistent: false, networkPolicy: "deny-all", tags: { "lwc-role": "test" } });
    const { snapshotId: emptySnapshot } = await empty.snapshot();
    const failed = await start({ snapshotId: emptySnapshot }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(VercelSandboxError);
    expect(failed).toMatchObject({ failure: "not_started", detail: "the session relay exited with code 1 before it listened" });
    expect((failed as Error).message).toBe("The agent could not start in its sandbox.");
    const made = fake.stats().sandboxes.filter((entry) => entry.tags.deploy === "test").at(-1)!;
    expect(made.status).toBe("stopped");
    expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  });

  it("a sandbox stopped mid-call: the channel reports it closed, sends fail, and a stop is a no-op", async () => {
    const codex = collector();
    const { handle, channel } = await start({ onLine: codex.onLine, reconnectForMs: 1_000 });
    const statusOf = () => fake.stats().sandboxes.find((entry) => entry.name === handle.sandboxId)?.status;
    const processes = vmProcesses(handle.sandboxId);
    await channel.send(JSON.stringify({ id: "a-1", method: "initialize", params: { clientInfo: { name: "lwc_tests", title: null, version: "0.0.0" }, capabilities: {} } }));
    await codex.answered("a-1");

    await fetch(`${fake.url}/__fake/sandboxes/${handle.sandboxId}/stop`, { method: "POST", body: "{}" });
    expect(await channel.ended).toMatchObject({ reason: "unreachable" });
    await expect(channel.send(JSON.stringify({ id: "a-2", method: "account/read", params: {} }))).rejects.toThrow(/ended/);
    await waitUntil(() => processes.every(({ pid }) => !processAlive(pid)));
    await stopVercelSandbox(api, handle);
    expect(statusOf()).toBe("stopped");
  });

  it("the snapshot command fails with exit code 1 and says why when codex does not run in the VM, and leaves no sandbox running", async () => {
    const failed = await promisify(execFile)(process.execPath, ["--conditions=react-server", "--import", "tsx", SNAPSHOT_SCRIPT, "--codex-path", "/nowhere/codex"], {
      env: childEnv(),
    }).catch((error: unknown) => error as { code: number; stdout: string; stderr: string });
    expect(failed).toMatchObject({ code: 1, stdout: "" });
    expect((failed as { stderr: string }).stderr).toMatch(/agent-voice:snapshot: The agent could not start in its sandbox\. \(.*--version exited with code 127/);
    expect(fake.stats().live).toBe(0);
  });

  it("the sweep stops the app's running sandboxes with the tag, except those kept; other tags and other apps' are left", async () => {
    const make = (tags: Record<string, string>) => Sandbox.create({ ...api, timeout: 60_000, persistent: false, networkPolicy: "deny-all", tags }).then((sandbox) => sandbox.name);
    const orphan = await make({ app: "lwc-agent-voice", deploy: "old" });
    const kept = await make({ app: "lwc-agent-voice", deploy: "old" });
    const current = await make({ app: "lwc-agent-voice", deploy: "new" });
    const otherApp = await make({ app: "another-app", deploy: "old" });
    const mine = [orphan, kept, current, otherApp];
    for (const name of mine) vmProcesses(name);
    const status = () => Object.fromEntries(fake.stats().sandboxes.filter((entry) => mine.includes(entry.name)).map((entry) => [entry.name, entry.status]));

    expect(await sweepOrphanedSandboxes(api, { tag: { deploy: "old" }, keep: (name) => name === kept })).toEqual([orphan]);
    expect(status()).toEqual({ [orphan]: "stopped", [kept]: "running", [current]: "running", [otherApp]: "running" });

    // Created since the given time: left (a start may still be under way).
    expect(await sweepOrphanedSandboxes(api, { keepCreatedSince: Date.now() - 60_000 })).toEqual([]);
    expect(status()).toEqual({ [orphan]: "stopped", [kept]: "running", [current]: "running", [otherApp]: "running" });

    // By the app's tag (the default): every running one of the app's, none of another app's.
    expect((await sweepOrphanedSandboxes(api)).sort()).toEqual([kept, current].sort());
    expect(status()).toEqual({ [orphan]: "stopped", [kept]: "stopped", [current]: "stopped", [otherApp]: "running" });
    expect(fake.stats().live).toBe(1);
  });
});
