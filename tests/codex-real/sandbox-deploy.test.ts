/**
 * Wherever the app is deployed, its sandbox shows codex none of it (issue 32, finding 1). The app
 * runs from /usr/src/app (the Node image convention) or /opt/app, with its secret in an env file
 * there that the server read as `next start` does; apply_patch with the real codex tries to read
 * that file. A folder the sandbox would show that holds the app or an env file it read makes agent
 * voice unavailable (503 agent_sandbox_unavailable, the fix in the log), never silently exposed.
 *
 * Runs as root (here and in CI): the folders are made by the test and removed after it; a folder
 * that already exists is left alone and the test fails instead.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SIDEBAND_IN, SIDEBAND_PATH } from "@/mock-upstream/codex";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "@/mock-upstream/server";
import { openEvents } from "@/tests/integration/app-server-harness";
import { createEvidence, signIn, TestClient } from "@/tests/integration/harness";
import { codexExecutable, codexReadOnlyPaths } from "./codex-binary";
import { loopbackOffer, type LoopbackOffer } from "./loopback-offer";
import { startProxySink, type ProxySink } from "./proxy-sink";
import { serveApp, type ServedApp } from "./served-app";

const run = `${process.pid}-${Date.now()}`;
const SECRET_MARKER = `deployed-env-marker-${run}`;

let mock: MockUpstream;
let sink: ProxySink;
let wrapperDir: string;
let wrapper: string;
let readOnlyPaths: string[];
let server: ServedApp | undefined;
let offer: LoopbackOffer | undefined;
const madeFolders: string[] = [];

beforeAll(async () => {
  const codexPath = codexExecutable();
  readOnlyPaths = codexReadOnlyPaths(codexPath);
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  sink = await startProxySink();
  wrapperDir = mkdtempSync(join(tmpdir(), "lwc-codex-wrapper-"));
  wrapper = join(wrapperDir, "codex");
  const exports = Object.entries(sink.env).map(([name, value]) => `export ${name}='${value}'`);
  // Inside bwrap the sandbox's own proxy variables stand (its only way out); without them the sink
  // catches any attempt to leave 127.0.0.1.
  writeFileSync(wrapper, ["#!/bin/sh", `if [ -z "$HTTPS_PROXY" ]; then ${exports.join("; ")}; fi`, `exec '${codexPath}' "$@"`, ""].join("\n"));
  chmodSync(wrapper, 0o755);
}, 120_000);

afterAll(async () => {
  for (const folder of madeFolders.splice(0)) rmSync(folder, { recursive: true, force: true });
  rmSync(wrapperDir, { recursive: true, force: true });
  await sink?.close();
  await mock?.close();
});

afterEach(async () => {
  await offer?.close();
  offer = undefined;
  const log = server?.output() ?? "";
  await server?.stop();
  server = undefined;
  mock.reset();
  expect(sink.attempts).toEqual([]);
  // Inside the sandbox nothing tried to reach a host other than the mock.
  expect(log.split("\n").filter((line) => line.includes("the sandbox refused"))).toEqual([]);
});

/** Makes `folder` (and the parents it needs) for this test; refuses one that already exists. */
function makeAppFolder(folder: string, envFile: string): string {
  if (existsSync(folder)) throw new Error(`${folder} already exists: this test makes and removes it, and will not touch one it did not make`);
  let top = folder;
  while (!existsSync(join(top, ".."))) top = join(top, "..");
  madeFolders.push(top);
  mkdirSync(folder, { recursive: true });
  // The app's secret, read by the server from its env file (nothing sets it in the environment).
  const path = join(folder, envFile);
  writeFileSync(path, `FIRST=1\nLWC_SECRET=${SECRET_MARKER}-${"x".repeat(32)}\nLAST=1\n`, { mode: 0o600 });
  return path;
}

function removeAppFolder(folder: string): void {
  rmSync(folder, { recursive: true, force: true });
}

async function serveFrom(cwd: string, extraEnv: Record<string, string> = {}): Promise<ServedApp> {
  server = await serveApp({
    cwd,
    loadEnvFiles: true,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      LWC_ISSUER_URL: mock.issuer,
      LWC_CODEX_BASE_URL: mock.codexBaseUrl,
      LWC_CODEX_COMMAND: wrapper,
      LWC_AGENT_SANDBOX_READONLY_PATHS: readOnlyPaths.join(":"),
      ...extraEnv,
    },
  });
  return server;
}

const sidebandFrame = (type: string) => (r: RecordedRequest) =>
  r.method === SIDEBAND_IN && r.path === SIDEBAND_PATH && (r.body as { type?: string } | undefined)?.type === type;

/** A signed-in person's agent voice session; the mock model answers the handoff with `patches`. */
async function patchThroughVoice(served: ServedApp, patches: string[]) {
  const client = new TestClient(served.port, createEvidence());
  await signIn({ mock }, client);
  offer = await loopbackOffer();
  const reply = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
  expect(reply.status, `${reply.text}\n${served.output()}`).toBe(201);
  const { sessionId } = reply.json<{ sessionId: string }>();
  await mock.waitForRequest(sidebandFrame("session.update"));
  const events = await openEvents(client, sessionId);
  mock.codex.queueToolCalls(patches.map((input) => ({ name: "apply_patch", input })));
  mock.codex.requestHandoff({ transcript: "Please tidy up the server's files." });
  await mock.waitForRequest(
    (r) => sidebandFrame("conversation.handoff.append")(r) && /Final Message":\n\nDone\./.test((r.body as { output_text: string }).output_text),
    30_000,
  );
  const responses = mock.requests({ path: "/backend-api/codex/responses" });
  const outputs = (responses.at(-1)!.body as { input: Record<string, unknown>[] }).input.filter((item) => item.type === "custom_tool_call_output");
  expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  const seen = await events.rest();
  return {
    everything: JSON.stringify(mock.requests()) + JSON.stringify(seen) + served.output(),
    outputs: outputs.map((item) => String(item.output)),
  };
}

/** What agent voice runs under the server: bwrap and codex (the test's TypeScript loader may start a helper of its own). */
function agentProcesses(served: ServedApp): string[] {
  const command = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
    } catch {
      return ""; // Gone while we looked.
    }
  };
  return served.descendants().map(command).filter((line) => /bwrap|codex/.test(line));
}

const remove = (path: string) => `*** Begin Patch\n*** Delete File: ${path}\n*** End Patch\n`;
const update = (path: string) => `*** Begin Patch\n*** Update File: ${path}\n@@\n-LAST=1\n+LAST=2\n*** End Patch\n`;
const notThere = (output: string) => (/^apply_patch verification failed: Failed to read .*No such file or directory/.test(output) ? "not there" : output);

describe("an app deployed under /usr/src/app (WORKDIR of the Node images)", () => {
  const app = "/usr/src/app";
  afterEach(() => removeAppFolder(app));

  it("apply_patch cannot read its .env.local: the secret reaches neither the voice model nor the page", async () => {
    const envFile = makeAppFolder(app, ".env.local");
    const served = await serveFrom(app);
    const seen = await patchThroughVoice(served, [remove(envFile), update(envFile)]);
    expect(seen.everything.includes(SECRET_MARKER), "the secret reached the voice model, the page or the log").toBe(false);
    expect(seen.outputs.map(notThere)).toEqual(["not there", "not there"]);
  });
});

describe("an app deployed under /opt/app", () => {
  const app = "/opt/app";
  afterEach(() => removeAppFolder(app));

  it("apply_patch cannot read its .env.production", async () => {
    const envFile = makeAppFolder(app, ".env.production");
    const served = await serveFrom(app);
    const seen = await patchThroughVoice(served, [remove(envFile), update(envFile)]);
    expect(seen.everything.includes(SECRET_MARKER), "the secret reached the voice model, the page or the log").toBe(false);
    expect(seen.outputs.map(notThere)).toEqual(["not there", "not there"]);
  });

  it("a read-only path that holds the app (/opt) makes agent voice unavailable: 503, nothing spawned, the fix in the log", async () => {
    makeAppFolder(app, ".env.production");
    const served = await serveFrom(app, { LWC_AGENT_SANDBOX_READONLY_PATHS: [...readOnlyPaths, "/opt"].join(":") });
    const client = new TestClient(served.port, createEvidence());
    await signIn({ mock }, client);
    const status = await client.get("/realtime/app-server/status");
    expect(status.json()).toMatchObject({ available: false, sandbox: "bwrap" });
    offer = await loopbackOffer();
    const reply = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
    expect(reply.status, reply.text).toBe(503);
    expect(reply.json()).toEqual({ error: "agent_sandbox_unavailable", message: expect.stringMatching(/^Agent voice is unavailable on this server/) });
    expect(reply.text).not.toContain("/opt");
    expect(agentProcesses(served)).toEqual([]);
    const log = served.output();
    expect(log).toMatch(/agent voice is unavailable: its bwrap sandbox cannot start \(it would show \/opt, which holds the app's folder \(\/opt\/app\)\)/);
    expect(log).toContain("LWC_AGENT_SANDBOX_READONLY_PATHS");
    expect(log.includes(SECRET_MARKER), "the secret is in the log").toBe(false);
  });

  it("so does a read-only path that is an env file the app read (the server knows which it read, as next start does)", async () => {
    const envFile = makeAppFolder(app, ".env.production");
    const served = await serveFrom(app, { LWC_AGENT_SANDBOX_READONLY_PATHS: [...readOnlyPaths, envFile].join(":") });
    const client = new TestClient(served.port, createEvidence());
    await signIn({ mock }, client);
    offer = await loopbackOffer();
    const reply = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
    expect(reply.status, reply.text).toBe(503);
    expect(agentProcesses(served)).toEqual([]);
    expect(served.output()).toContain(`it would show ${envFile}, which holds an env file the app read (${envFile})`);
  });

  it("a codex command inside the app's folder makes agent voice unavailable the same way", async () => {
    makeAppFolder(app, ".env.production");
    const inApp = join(app, "codex-wrapper");
    writeFileSync(inApp, `#!/bin/sh\nexec '${wrapper}' "$@"\n`, { mode: 0o755 });
    const served = await serveFrom(app, { LWC_CODEX_COMMAND: inApp });
    const client = new TestClient(served.port, createEvidence());
    await signIn({ mock }, client);
    offer = await loopbackOffer();
    const reply = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
    expect(reply.status, reply.text).toBe(503);
    expect(reply.json()).toMatchObject({ error: "agent_sandbox_unavailable" });
    expect(agentProcesses(served)).toEqual([]);
    expect(served.output()).toMatch(/would show \/opt\/app, which holds the app's folder/);
  });
});
