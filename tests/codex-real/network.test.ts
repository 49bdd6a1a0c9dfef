/**
 * Issue 32's third finding, with the real codex in the app's bwrap sandbox: the sandbox used the
 * host's network, so /proc/net showed every listening port and abstract socket of the host, and a
 * process inside connected to any loopback service (Redis, the app itself). Now the sandbox has a
 * network namespace of its own, and its only way out is the server's egress proxy, which lets
 * codex reach the upstream's hosts (here: the mock) and refuses and logs everything else.
 *
 * The codex command is a wrapper that first runs a probe, inside the very sandbox codex then runs
 * in: what /proc/net shows, a connection to a real Redis on the host's 127.0.0.1, to the app
 * itself, and the same through the proxy. Then the whole session runs through the allow-list.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { codexConfigToml, REAL_CODEX_BASE_URL, REAL_ISSUER_URL } from "@/lib/agent-voice/codex-config";
import { referenceConfirmTool, referenceTools } from "@/lib/agent-voice/tools";
import { SIDEBAND_IN, SIDEBAND_PATH } from "@/mock-upstream/codex";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "@/mock-upstream/server";
import { startRedisServer, type RedisServer } from "@/test-support/redis-server";
import { openEvents } from "@/tests/integration/app-server-harness";
import { signIn, startHarness, type Harness, type TestClient } from "@/tests/integration/harness";
import { codexExecutable, codexReadOnlyPaths, processGroupExists, processGroupMembers, processGroupOf } from "./codex-binary";
import { loopbackOffer, type LoopbackOffer } from "./loopback-offer";

const RELAY_PORT = 3128;
const run = `${process.pid}-${Date.now()}`;
const abstractName = `lwc-network-test-${run}`;

let mock: MockUpstream;
let redis: RedisServer;
let abstractSocket: TcpServer;
let wrapperDir: string;
let wrapper: string;
let readOnlyPaths: string[];
let h: Harness | undefined;
let offer: LoopbackOffer | undefined;

/** The probe the wrapper runs inside the sandbox before codex; its JSON goes to $HOME/network-probe.json. */
const PROBE = `"use strict";
const fs = require("node:fs"), net = require("node:net"), http = require("node:http");
const targets = JSON.parse(fs.readFileSync(__dirname + "/targets.json", "utf8"));
const listening = ["tcp", "tcp6"].flatMap((file) => fs.readFileSync("/proc/net/" + file, "utf8").split("\\n").slice(1)
  .map((line) => line.trim().split(/\\s+/)).filter((f) => f[3] === "0A").map((f) => f[1]));
const abstractSockets = fs.readFileSync("/proc/net/unix", "utf8").split("\\n").filter((l) => l.includes("@")).map((l) => l.trim().split(/\\s+/).pop());
function direct(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.setTimeout(5000, () => { socket.destroy(); resolve("timeout"); });
    socket.once("connect", () => socket.write("PING\\r\\n"));
    socket.once("data", (d) => { socket.destroy(); resolve("reached: " + d.toString().trim().slice(0, 20)); });
    socket.once("error", (e) => resolve(e.code));
  });
}
function throughProxy(port) {
  const proxy = new URL(process.env.HTTPS_PROXY || "http://127.0.0.1:1");
  return new Promise((resolve) => {
    http.request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: "127.0.0.1:" + port, agent: false })
      .once("connect", (r, socket) => { socket.destroy(); resolve(String(r.statusCode)); })
      .once("response", (r) => resolve(String(r.statusCode)))
      .once("error", (e) => resolve(e.code))
      .end();
  });
}
Promise.all([direct(targets.redis), direct(targets.app), throughProxy(targets.redis)]).then(([redis, app, proxiedRedis]) =>
  process.stdout.write(JSON.stringify({ listening, abstractSockets, redis, app, proxiedRedis })));
`;

beforeAll(async () => {
  const codexPath = codexExecutable();
  readOnlyPaths = codexReadOnlyPaths(codexPath);
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  redis = await startRedisServer();
  abstractSocket = createTcpServer(() => undefined);
  await new Promise<void>((resolve) => abstractSocket.listen(`\0${abstractName}`, resolve));
  wrapperDir = mkdtempSync(join(tmpdir(), "lwc-codex-wrapper-"));
  wrapper = join(wrapperDir, "codex");
  writeFileSync(join(wrapperDir, "probe.cjs"), PROBE);
  writeFileSync(
    wrapper,
    [
      "#!/bin/sh",
      `export LWC_TEST_CODEX_RUN='${run}'`,
      `'${process.execPath}' '${join(wrapperDir, "probe.cjs")}' > "$HOME/network-probe.json" 2>&1`,
      `exec '${codexPath}' "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(wrapper, 0o755);
}, 120_000);

afterAll(async () => {
  rmSync(wrapperDir, { recursive: true, force: true });
  await new Promise((resolve) => abstractSocket?.close(resolve));
  await redis?.dispose();
  await mock?.close();
});

/** The process groups of every sandbox a test started: each must be gone when the test ends. */
const groups = new Set<number>();

afterEach(async () => {
  await offer?.close();
  offer = undefined;
  // The handler's close() ends every codex process it still has (a test that failed half-way).
  await h?.provider.close();
  await h?.close();
  h = undefined;
  mock.reset();
  for (const pgid of groups) await expect.poll(() => processGroupExists(pgid), { timeout: 10_000 }).toBe(false);
  groups.clear();
});

async function startApp(extra: { configToml?: string; startTimeoutMs?: number } = {}): Promise<{ client: TestClient; harness: Harness }> {
  const harness = await startHarness({
    sharedMock: mock,
    handler: {
      realtime: { agentVoice: { command: wrapper, tools: referenceTools, keepWarmProcess: false, sandboxReadOnlyPaths: readOnlyPaths, ...extra } },
      confirmTool: referenceConfirmTool,
    },
  });
  h = harness;
  writeFileSync(join(wrapperDir, "targets.json"), JSON.stringify({ redis: redis.port, app: harness.served.port }));
  const client = harness.client();
  await signIn(harness, client);
  return { client, harness };
}

/** The running codex processes this file started (launcher and native binary): the wrapper's marker is in their environment. */
function codexPids(): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
        return readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("app-server") && environ.includes(`LWC_TEST_CODEX_RUN=${run}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The private home of one of our codex processes. */
function homeOf(pid: number): string {
  const home = /(?:^|\0)HOME=([^\0]*)/.exec(readFileSync(`/proc/${pid}/environ`, "utf8"))?.[1];
  if (!home) throw new Error(`process ${pid} has no HOME`);
  return home;
}

/**
 * The TCP sockets a process has, as its own network namespace shows them (/proc/<pid>/net/tcp):
 * `local remote state`, ports in decimal.
 */
function socketsSeenBy(pid: number): { local: number; remote: number; state: string }[] {
  return ["tcp", "tcp6"].flatMap((file) =>
    readFileSync(`/proc/${pid}/net/${file}`, "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields.length > 3)
      .map((fields) => ({ local: parseInt(fields[1]!.split(":")[1]!, 16), remote: parseInt(fields[2]!.split(":")[1]!, 16), state: fields[3]! })),
  );
}

const refusals = (harness: Harness) => harness.evidence.logs.map((line) => line.message).filter((message) => message.includes("the sandbox refused"));

const sidebandFrame = (type: string) => (r: RecordedRequest) =>
  r.method === SIDEBAND_IN && r.path === SIDEBAND_PATH && (r.body as { type?: string } | undefined)?.type === type;

it("inside the sandbox /proc/net holds none of the host's listeners, the host's Redis and the app cannot be reached, and the whole session runs through the allow-list", async () => {
  // The host's services are there, and answer on the host.
  const pong = await new Promise<string>((resolve, reject) => {
    const socket = createConnection(redis.port, "127.0.0.1", () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString().trim());
    });
    socket.once("error", reject);
  });
  expect(pong).toBe("+PONG");

  const { client, harness } = await startApp();
  offer = await loopbackOffer();
  const reply = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
  expect(reply.status, reply.text).toBe(201);
  const { sessionId } = reply.json<{ sessionId: string }>();
  await mock.waitForRequest(sidebandFrame("session.update"));
  const pids = codexPids();
  expect(pids.length).toBeGreaterThan(0);
  const pgid = processGroupOf(pids[0]!);
  groups.add(pgid);

  // What the probe saw inside, before codex started: in its home, a tmpfs inside the sandbox, read
  // as codex sees it (through /proc/<pid>/root).
  const probe = JSON.parse(readFileSync(`/proc/${pids[0]!}/root${join(homeOf(pids[0]!), "network-probe.json")}`, "utf8")) as Record<string, unknown>;
  const hex = (port: number) => `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  expect(probe.listening, "listening sockets inside: only the relay's").toEqual([hex(RELAY_PORT)]);
  expect(probe.abstractSockets).not.toContain(`@${abstractName}`);
  expect(probe.redis, "a direct connection to the host's Redis").toBe("ECONNREFUSED");
  expect(probe.app, "a direct connection to the app itself").toBe("ECONNREFUSED");
  expect(probe.proxiedRedis, "the host's Redis through the egress proxy").toBe("403");
  expect(refusals(harness)).toEqual([
    expect.stringMatching(
      new RegExp(
        `^\\[login-with-chatgpt\\] agent voice: the sandbox refused codex's CONNECT 127\\.0\\.0\\.1:${redis.port}: not one of the upstream hosts ` +
          "\\(LWC_AGENT_SANDBOX_ALLOW_HOSTS adds one; docs/agent-voice\\.md#its-own-network\\)",
      ),
    ),
  ]);

  // The sandbox's first process is the relay, in the sandbox's process group with everything else.
  const members = processGroupMembers(pgid);
  expect(members.some((member) => member.cmdline.includes("relay.cjs"))).toBe(true);

  // The whole session through the allow-list: handoff, a tool, a confirmation, the answer spoken back.
  const events = await openEvents(client, sessionId);
  mock.codex.queueToolCalls([
    { name: "get_current_time", arguments: {} },
    { name: "save_note", arguments: { text: "through the proxy" } },
  ]);
  mock.codex.requestHandoff({ transcript: "What time is it? And save a note." });
  expect(await events.next((e) => e.type === "tool.completed")).toMatchObject({ tool: "get_current_time" });
  const pending = await events.next((e) => e.type === "tool.pending_confirmation");
  expect((await client.post(`/realtime/app-server/${sessionId}/confirm`, { callId: pending.callId, confirmation: { approved: true } })).status).toBe(200);
  const append = await mock.waitForRequest(
    (r) => sidebandFrame("conversation.handoff.append")(r) && /Final Message":\n\nDone\./.test((r.body as { output_text: string }).output_text),
    20_000,
  );
  expect((append.body as { output_text: string }).output_text).toContain("save_note:");

  // codex's own view of the network: its sockets all lead to the relay (the sideband is open), none to the mock.
  const mockPort = Number(new URL(mock.url).port);
  for (const pid of pids) {
    const sockets = socketsSeenBy(pid);
    expect(sockets.some((socket) => socket.remote === RELAY_PORT && socket.state === "01"), `process ${pid} holds a connection to the relay`).toBe(true);
    expect(sockets.filter((socket) => socket.local !== RELAY_PORT && socket.remote !== RELAY_PORT)).toEqual([]);
    expect(sockets.some((socket) => socket.local === mockPort || socket.remote === mockPort)).toBe(false);
  }
  // Nothing but the probe's attempt was refused: every connection codex made was to the upstream.
  expect(refusals(harness)).toHaveLength(1);

  events.close();
  expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  // No process left: the whole sandbox group (bwrap, the relay, the launcher, codex) is gone.
  await expect.poll(() => processGroupExists(pgid), { timeout: 10_000 }).toBe(false);
  for (const member of members) expect(existsSync(`/proc/${member.pid}`), member.cmdline).toBe(false);
});

it("a host not on the list is refused and logged: codex configured for the real hosts reaches nothing", async () => {
  const configToml = codexConfigToml({ codexBaseUrl: REAL_CODEX_BASE_URL, issuerUrl: REAL_ISSUER_URL });
  const { client, harness } = await startApp({ configToml, startTimeoutMs: 15_000 });
  const before = mock.requests().length;
  offer = await loopbackOffer();
  const start = client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
  await expect
    .poll(() => refusals(harness).some((line) => line.includes("refused codex's CONNECT chatgpt.com:443")), { timeout: 15_000 })
    .toBe(true);
  for (const pid of codexPids()) groups.add(processGroupOf(pid));
  const reply = await start;
  // The start cannot succeed without its upstream: it fails with our own sentence.
  expect(reply.status).toBe(502);
  // The probe's Redis attempt and codex's attempts at chatgpt.com were refused, each logged once
  // (codex retried it many times); nothing reached the mock.
  const refused = refusals(harness).map((line) => /refused codex's (\S+ \S+):/.exec(line)?.[1]);
  expect(refused).toEqual([`CONNECT 127.0.0.1:${redis.port}`, "CONNECT chatgpt.com:443"]);
  expect(mock.requests().slice(before).filter((r) => r.path.startsWith("/backend-api") || r.path.startsWith("/v1/"))).toEqual([]);
}, 60_000);
