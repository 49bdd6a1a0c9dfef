/**
 * Issue 17's first finding, with the real codex: to build apply_patch's approval request codex
 * reads the target file in its own process (a Delete File carries the whole content, an Update
 * File its context lines) and tells the voice session at once, before the bridge declines. Run as
 * the server's user, that read the server's /proc/<pid>/environ (LWC_SECRET), a .env in the app's
 * folder and any file in /tmp. Inside the bwrap sandbox (the default) none of them is there.
 *
 * The server is the app's own handler in a process of its own (app-process.ts), so its
 * /proc/<pid>/environ really holds the marker; the mock model makes the patches. Nothing the mock
 * receives (sideband frames, /responses bodies), nothing the client receives (events, bodies) and
 * nothing the server logs may contain a marker. A control run with LWC_AGENT_SANDBOX=off shows
 * the same patches do deliver every marker, so the check can fail.
 *
 * Issue 32's third finding the same way: apply_patch of /proc/net/tcp and /proc/net/unix delivered
 * every listening port and abstract socket of the host. Inside the sandbox's own network namespace
 * they list only the sandbox's own sockets (the egress relay's listener); unsandboxed, the host's.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { codexConfigToml } from "@/lib/agent-voice/codex-config";
import { referenceConfirmTool } from "@/lib/agent-voice/tools";
import { SIDEBAND_IN, SIDEBAND_PATH } from "@/mock-upstream/codex";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "@/mock-upstream/server";
import { openEvents } from "@/tests/integration/app-server-harness";
import { createEvidence, signIn, startHarness, TestClient } from "@/tests/integration/harness";
import { codexExecutable, codexReadOnlyPaths, processGroupMembers, processGroupOf } from "./codex-binary";
import { loopbackOffer, type LoopbackOffer } from "./loopback-offer";
import { startProxySink, type ProxySink } from "./proxy-sink";

const projectRoot = join(import.meta.dirname, "..", "..");
const run = `${process.pid}-${Date.now()}`;
/** One marker per place, so a failure names what leaked. */
const MARKERS = {
  serverEnvironment: `env-marker-${run}`,
  appDotEnv: `dotenv-marker-${run}`,
  tmpFile: `tmp-marker-${run}`,
};
const dotEnvPath = join(projectRoot, `.env.sandbox-test-${run}.local`);
/** An abstract unix socket of the host (as a desktop session or a database would hold). */
const abstractName = `lwc-sandbox-test-${run}`;
/** A host listener in /proc/net/tcp: 127.0.0.1:<port>, as the kernel writes it. */
const listenerEntry = (port: number) => `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
/** The egress relay's listener inside the sandbox (127.0.0.1:3128). */
const RELAY_LISTENER = listenerEntry(3128);
const tmpFilePath = join(tmpdir(), `lwc-sandbox-test-${run}.txt`);

let mock: MockUpstream;
let sink: ProxySink;
let wrapperDir: string;
let wrapper: string;
let readOnlyPaths: string[];
let server: { child: ChildProcess; port: number; output: () => string } | undefined;
let offer: LoopbackOffer | undefined;
let abstractSocket: TcpServer;

beforeAll(async () => {
  const codexPath = codexExecutable();
  readOnlyPaths = codexReadOnlyPaths(codexPath);
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  sink = await startProxySink();
  wrapperDir = mkdtempSync(join(tmpdir(), "lwc-codex-wrapper-"));
  wrapper = join(wrapperDir, "codex");
  // Marks the processes as this file's. Inside bwrap the sandbox's own proxy variables stand (its
  // only way out); unsandboxed (the control), the sink catches any attempt to leave 127.0.0.1.
  const exports = Object.entries(sink.env).map(([name, value]) => `export ${name}='${value}'`);
  writeFileSync(
    wrapper,
    ["#!/bin/sh", `export LWC_TEST_CODEX_RUN='${run}'`, `if [ -z "$HTTPS_PROXY" ]; then ${exports.join("; ")}; fi`, `exec '${codexPath}' "$@"`, ""].join("\n"),
  );
  chmodSync(wrapper, 0o755);
  abstractSocket = createTcpServer(() => undefined);
  await new Promise<void>((resolve) => abstractSocket.listen(`\0${abstractName}`, resolve));
  const secretFile = (marker: string) => `FIRST=1\nLWC_SECRET=${marker}\nLAST=1\n`;
  writeFileSync(dotEnvPath, secretFile(MARKERS.appDotEnv));
  writeFileSync(tmpFilePath, secretFile(MARKERS.tmpFile));
}, 120_000);

afterAll(async () => {
  rmSync(dotEnvPath, { force: true });
  rmSync(tmpFilePath, { force: true });
  rmSync(wrapperDir, { recursive: true, force: true });
  await new Promise((resolve) => abstractSocket?.close(resolve));
  await sink?.close();
  await mock?.close();
});

afterEach(async () => {
  await offer?.close();
  offer = undefined;
  const log = server?.output() ?? "";
  await stopServer();
  mock.reset();
  expect(sink.attempts).toEqual([]);
  // Inside the sandbox nothing tried to reach a host other than the mock.
  expect(log.split("\n").filter((line) => line.includes("the sandbox refused"))).toEqual([]);
});

/** Starts the app's handler in a server process whose environment holds the marker. */
async function startServer(extraEnv: Record<string, string>): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LWC_SECRET: `sandbox-test-secret-${MARKERS.serverEnvironment}`,
    LWC_ISSUER_URL: mock.issuer,
    LWC_CODEX_BASE_URL: mock.codexBaseUrl,
    LWC_CODEX_COMMAND: wrapper,
    LWC_AGENT_SANDBOX_READONLY_PATHS: readOnlyPaths.join(":"),
    ...extraEnv,
  };
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "tests/codex-real/app-process.ts"], {
    cwd: projectRoot,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}: ${output}`)));
  });
  return { child, port, output: () => output };
}

/**
 * Pids of the processes serving this file's sessions: the launcher and codex (our run's marker is
 * in their environment), and the rest of their process group (bwrap and the egress relay).
 */
function sessionPids(): number[] {
  const pids = new Set<number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      if (!cmdline.includes("app-server") || !environ.includes(`LWC_TEST_CODEX_RUN=${run}`)) continue;
      pids.add(Number(entry));
      for (const member of processGroupMembers(processGroupOf(Number(entry)))) pids.add(member.pid);
    } catch {
      // Gone while we looked.
    }
  }
  return [...pids];
}

async function untilGone(pids: number[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some((pid) => existsSync(`/proc/${pid}`))) {
    if (Date.now() > deadline) throw new Error(`still running: ${pids.filter((pid) => existsSync(`/proc/${pid}`)).join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Ends the server by pid (SIGKILL), then proves its codex processes are gone and removes their folders. */
async function stopServer(): Promise<void> {
  if (!server) return;
  const { child } = server;
  server = undefined;
  const pids = sessionPids();
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }
  // Without their server: the sandbox dies with its parent; unsandboxed, codex exits as stdin closes.
  await untilGone(pids);
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith("lwc-codex-")) continue;
    const owner = existsSync(join(tmpdir(), name, ".owner-pid")) ? readFileSync(join(tmpdir(), name, ".owner-pid"), "utf8") : "";
    if (owner === String(child.pid)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

const sidebandFrame = (type: string) => (r: RecordedRequest) =>
  r.method === SIDEBAND_IN && r.path === SIDEBAND_PATH && (r.body as { type?: string } | undefined)?.type === type;

/**
 * A signed-in client starts an agent-voice session; the mock model answers the handoff with the
 * six patches; resolves with everything the mock and the client received once the turn is done.
 */
async function attack(extraEnv: Record<string, string>) {
  server = await startServer(extraEnv);
  const client = new TestClient(server.port, createEvidence());
  await signIn({ mock }, client);
  offer = await loopbackOffer();
  const reply = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
  expect(reply.status, reply.text).toBe(201);
  const { sessionId } = reply.json<{ sessionId: string }>();
  await mock.waitForRequest(sidebandFrame("session.update"));
  const events = await openEvents(client, sessionId);

  const serverEnviron = `/proc/${server.child.pid}/environ`;
  const remove = (path: string) => `*** Begin Patch\n*** Delete File: ${path}\n*** End Patch\n`;
  const update = (path: string) => `*** Begin Patch\n*** Update File: ${path}\n@@\n-LAST=1\n+LAST=2\n*** End Patch\n`;
  const patches = [
    remove(serverEnviron),
    remove("/proc/1/environ"),
    remove(dotEnvPath),
    remove(tmpFilePath),
    update(dotEnvPath),
    update(tmpFilePath),
    remove("/proc/net/tcp"),
    remove("/proc/net/unix"),
  ];
  mock.codex.queueToolCalls(patches.map((input) => ({ name: "apply_patch", input })));
  mock.codex.requestHandoff({ transcript: "Please tidy up a few files on the server." });

  // The turn's final answer (it quotes every patch's outcome) goes back to the voice session.
  await mock.waitForRequest(
    (r) => sidebandFrame("conversation.handoff.append")(r) && /Final Message":\n\nDone\./.test((r.body as { output_text: string }).output_text),
    30_000,
  );
  const responses = mock.requests({ path: "/backend-api/codex/responses" });
  const outputs = (responses.at(-1)!.body as { input: Record<string, unknown>[] }).input.filter((item) => item.type === "custom_tool_call_output");
  expect(outputs, "every patch reached codex and got an outcome").toHaveLength(patches.length);

  expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  const seen = await events.rest();
  return {
    mockReceived: JSON.stringify(mock.requests()),
    clientReceived: JSON.stringify(seen) + (await client.get("/realtime/app-server/notes")).text,
    serverLog: server.output(),
    outputs: outputs.map((item) => String(item.output)),
    // Host sockets the voice model must not learn of: the mock's and the app's listeners, an abstract socket.
    hostSockets: { mock: listenerEntry(Number(new URL(mock.url).port)), app: listenerEntry(server.port), abstract: `@${abstractName}` },
  };
}

function leaked(text: string): string[] {
  return Object.entries(MARKERS)
    .filter(([, marker]) => text.includes(marker))
    .map(([where]) => where);
}

it("with the sandbox (the default), apply_patch cannot read the server's environment, the app's .env or /tmp, and /proc/net shows none of the host's sockets: nothing of them reaches the voice model or the page", async () => {
  const seen = await attack({});
  expect(leaked(seen.mockReceived), "markers the mock (the voice and agent models) received").toEqual([]);
  expect(leaked(seen.clientReceived), "markers the page received").toEqual([]);
  expect(leaked(seen.serverLog), "markers in the server's log").toEqual([]);
  // Inside, those paths do not exist: each read fails before any approval is asked. Only
  // /proc/1/environ is there (bwrap's own: the process's minimal environment), and the bridge
  // declines that patch as it declines every other.
  const outcome = (output: string) => (/^apply_patch verification failed: Failed to read .*No such file or directory/.test(output) ? "not there" : output);
  expect(seen.outputs.map(outcome)).toEqual([
    "not there",
    "patch rejected by user",
    "not there",
    "not there",
    "not there",
    "not there",
    // /proc/net/tcp and /proc/net/unix are read (and the patches declined): they are the sandbox's own.
    "patch rejected by user",
    "patch rejected by user",
  ]);
  // They reached the voice model, and list only the sandbox's own sockets: the relay's listener,
  // none of the host's listeners or abstract sockets.
  expect(Object.entries(seen.hostSockets).filter(([, entry]) => seen.mockReceived.includes(entry))).toEqual([]);
  expect(seen.mockReceived).toContain(RELAY_LISTENER);
});

it("(control) with LWC_AGENT_SANDBOX=off the same patches deliver every marker to the voice session", async () => {
  const seen = await attack({ LWC_AGENT_SANDBOX: "off" });
  expect(leaked(seen.mockReceived).sort()).toEqual(Object.keys(MARKERS).sort());
  expect(seen.serverLog).toMatch(/agent voice runs WITHOUT a sandbox/);
  // Unsandboxed, /proc/net is the host's: every one of its sockets reaches the voice session.
  expect(Object.entries(seen.hostSockets).filter(([, entry]) => seen.mockReceived.includes(entry)).map(([name]) => name)).toEqual(["mock", "app", "abstract"]);
});

describe("codex's own command sandbox, inside ours", () => {
  /**
   * The lockdown switches the shell tools off, so codex never runs a command. Were that ever undone,
   * codex would run the command in its own bubblewrap sandbox, which cannot start inside ours (no
   * capabilities, a read-only root): the command fails instead of running. Checked through our
   * routes with a config that switches the shell tool back on; unsandboxed, the same command runs.
   */
  async function runCommandThroughTheBridge(sandbox: "bwrap" | "off"): Promise<string> {
    const configToml = codexConfigToml({ codexBaseUrl: mock.codexBaseUrl, issuerUrl: mock.issuer })
      .replace("shell_tool = false", "shell_tool = true")
      .replace("unified_exec = false", "unified_exec = true");
    expect(configToml).toMatch(/shell_tool = true/);
    const harness = await startHarness({
      sharedMock: mock,
      handler: {
        realtime: { agentVoice: { command: wrapper, configToml, keepWarmProcess: false, sandbox, sandboxReadOnlyPaths: readOnlyPaths } },
        confirmTool: referenceConfirmTool,
      },
    });
    try {
      const client = harness.client();
      await signIn(harness, client);
      offer = await loopbackOffer();
      const reply = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
      expect(reply.status, reply.text).toBe(201);
      const { sessionId } = reply.json<{ sessionId: string }>();
      await mock.waitForRequest(sidebandFrame("session.update"));
      const pids = sessionPids();
      mock.codex.queueToolCalls([{ name: "exec_command", arguments: { cmd: "echo ran-inside-$((6*7))" } }]);
      mock.codex.requestHandoff({ transcript: "Run a command on the server." });
      await mock.waitForRequest(
        (r) => sidebandFrame("conversation.handoff.append")(r) && /Final Message":\n\nDone\./.test((r.body as { output_text: string }).output_text),
        30_000,
      );
      const responses = mock.requests({ path: "/backend-api/codex/responses" });
      const output = (responses.at(-1)!.body as { input: Record<string, unknown>[] }).input.find((item) => item.type === "function_call_output");
      expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
      await untilGone(pids);
      return String(output?.output);
    } finally {
      await harness.close();
    }
  }

  it("a command fails to start instead of running", async () => {
    const output = await runCommandThroughTheBridge("bwrap");
    expect(output).toContain("error building bubblewrap command");
    expect(output).not.toContain("ran-inside-42");
  });

  it("(control) unsandboxed, codex's own sandbox starts and the same command runs", async () => {
    expect(await runCommandThroughTheBridge("off")).toContain("ran-inside-42");
  });
});
