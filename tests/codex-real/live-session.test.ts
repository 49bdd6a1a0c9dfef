/**
 * The real `codex app-server` behind OUR routes: a signed-in person starts an agent voice session,
 * the mock's voice side hands work over, Codex calls get_current_time and save_note, the note waits
 * for the person's approval, is saved, and the result goes back to the voice session (recorded by
 * the mock sideband). Plus the lockdown through the bridge, and no process left after hang-up.
 * The bridge runs codex inside its bwrap sandbox, whose only way out is the server's egress proxy
 * (allowing only the mock: any other host is refused and logged, and fails the test), through a
 * wrapper that only marks the process as this file's, and writes its default config.toml (the
 * lockdown and, the mock being local, the offline keys).
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { referenceConfirmTool, referenceTools } from "@/lib/agent-voice/tools";
import { SIDEBAND_IN, SIDEBAND_PATH } from "@/mock-upstream/codex";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "@/mock-upstream/server";
import { openEvents } from "@/tests/integration/app-server-harness";
import { findLeakedTokens, signIn, startHarness, type Harness, type TestClient } from "@/tests/integration/harness";
import { codexExecutable, codexReadOnlyPaths, processGroupMembers, processGroupOf } from "./codex-binary";
import { loopbackOffer, type LoopbackOffer } from "./loopback-offer";
import { offeredToolNames } from "./offered-tools";

let mock: MockUpstream;
let wrapperDir: string;
let wrapper: string;
let readOnlyPaths: string[];
let h: Harness | undefined;
let offer: LoopbackOffer | undefined;
/** Marks the codex processes of this file (the wrapper exports it). */
const run = `${process.pid}-${Date.now()}`;
/** Every codex pid a test started: each must be gone when the test ends. */
const started: number[] = [];

beforeAll(async () => {
  const codexPath = codexExecutable();
  readOnlyPaths = codexReadOnlyPaths(codexPath);
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  wrapperDir = mkdtempSync(join(tmpdir(), "lwc-codex-wrapper-"));
  wrapper = join(wrapperDir, "codex");
  writeFileSync(wrapper, ["#!/bin/sh", `export LWC_TEST_CODEX_RUN='${run}'`, `exec '${codexPath}' "$@"`, ""].join("\n"));
  chmodSync(wrapper, 0o755);
}, 120_000);

afterAll(async () => {
  rmSync(wrapperDir, { recursive: true, force: true });
  await mock?.close();
});

afterEach(async () => {
  await offer?.close();
  offer = undefined;
  const orphans = started.splice(0).filter((pid) => existsSync(`/proc/${pid}`));
  for (const pid of orphans) process.kill(pid, "SIGKILL");
  expect(orphans, "codex processes left running").toEqual([]);
  if (h) expect(findLeakedTokens(h.evidence)).toEqual([]);
  // Nothing tried to reach a host other than the mock.
  if (h) expect(h.evidence.logs.filter((line) => line.message.includes("the sandbox refused"))).toEqual([]);
  await h?.close();
  h = undefined;
  mock.reset();
});

async function startApp(): Promise<{ client: TestClient; harness: Harness }> {
  const harness = await startHarness({
    sharedMock: mock,
    handler: {
      realtime: {
        agentVoice: {
          command: wrapper,
          tools: referenceTools,
          keepWarmProcess: false,
          // Inside the sandbox (bwrap, the default) the wrapper's folder is visible; codex, which it
          // runs by path, is listed.
          sandboxReadOnlyPaths: readOnlyPaths,
        },
      },
      confirmTool: referenceConfirmTool,
    },
  });
  h = harness;
  const client = harness.client();
  await signIn(harness, client);
  return { client, harness };
}

/**
 * Pids of the codex processes this file started (launcher and native binary), read from /proc:
 * those whose environment has our run's marker, which only our wrapper sets.
 */
function codexPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      if (cmdline.includes("app-server") && environ.includes(`LWC_TEST_CODEX_RUN=${run}`)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

async function untilGone(pids: number[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some((pid) => existsSync(`/proc/${pid}`))) {
    if (Date.now() > deadline) throw new Error(`still running: ${pids.filter((pid) => existsSync(`/proc/${pid}`)).join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The private folder (HOME) of one of our running codex processes. */
function homeOf(pid: number): string {
  const home = /(?:^|\0)HOME=([^\0]*)/.exec(readFileSync(`/proc/${pid}/environ`, "utf8"))?.[1];
  if (!home) throw new Error(`process ${pid} has no HOME`);
  return home;
}

/** Files under `dir` whose bytes contain `text`. */
function filesContaining(dir: string, text: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => {
      try {
        return statSync(path).isFile() && readFileSync(path).includes(text);
      } catch {
        return false; // Removed while we looked (sqlite's -wal and -shm files come and go).
      }
    });
}

const sidebandFrame = (type: string) => (r: RecordedRequest) =>
  r.method === SIDEBAND_IN && r.path === SIDEBAND_PATH && (r.body as { type?: string } | undefined)?.type === type;

/** Codex's final answer of the handoff turn (the mock model's last message starts with "Done."). */
const finalAppend = () =>
  mock.waitForRequest(
    (r) => sidebandFrame("conversation.handoff.append")(r) && /Final Message":\n\nDone\./.test((r.body as { output_text: string }).output_text),
    20_000,
  );

async function startLive(client: TestClient): Promise<{ sessionId: string; pids: number[] }> {
  const before = new Set(codexPids());
  const lastRecorded = Math.max(0, ...mock.requests().map((r) => r.id));
  offer = await loopbackOffer();
  const reply = await client.post("/realtime/app-server", { sdp: offer.sdp, session: { voice: "cove" } });
  expect(reply.status, reply.text).toBe(201);
  const body = reply.json<{ sessionId: string; sdp: string }>();
  expect(body.sdp).toMatch(/^v=0\r\n/);
  const call = await mock.waitForRequest((r) => r.id > lastRecorded && r.path === "/backend-api/codex/realtime/calls" && r.status === 201);
  expect(call.body).toMatchObject({ sdp: offer.sdp });
  const codex = codexPids().filter((pid) => !before.has(pid));
  expect(codex.length).toBeGreaterThan(0);
  // And the rest of its sandbox (bwrap and the egress relay): the whole process group.
  const group = processGroupMembers(processGroupOf(codex[0]!));
  expect(group.some((member) => member.cmdline.includes("relay.cjs"))).toBe(true);
  const pids = [...new Set([...codex, ...group.map((member) => member.pid)])];
  started.push(...pids);
  await mock.waitForRequest((r) => r.id > lastRecorded && sidebandFrame("session.update")(r));
  return { sessionId: body.sessionId, pids };
}

it("handoff → get_current_time → save_note waits for approval → saved → the result goes back to the voice session", async () => {
  const { client } = await startApp();
  const { sessionId, pids } = await startLive(client);
  const events = await openEvents(client, sessionId);

  mock.codex.queueToolCalls([
    { name: "get_current_time", arguments: {} },
    { name: "save_note", arguments: { text: "buy milk" } },
  ]);
  const cue = mock.codex.requestHandoff({ transcript: "What time is it? And save a note: buy milk." });
  expect(cue).toBeDefined();

  expect(await events.next((e) => e.type === "handoff")).toMatchObject({ handoffId: cue!.handoffId, transcript: "What time is it? And save a note: buy milk." });
  expect(await events.next((e) => e.type === "tool.completed")).toMatchObject({ tool: "get_current_time" });
  const pending = await events.next((e) => e.type === "tool.pending_confirmation");
  expect(pending).toMatchObject({ tool: "save_note", review: { text: "buy milk" } });
  expect((await client.get("/realtime/app-server/notes")).json<{ notes: unknown[] }>().notes).toEqual([]);

  const confirm = await client.post(`/realtime/app-server/${sessionId}/confirm`, { callId: pending.callId, confirmation: { approved: true } });
  expect(confirm.status, confirm.text).toBe(200);
  expect(await events.next((e) => e.type === "tool.completed")).toMatchObject({ tool: "save_note", callId: pending.callId, approved: true });
  const notes = (await client.get("/realtime/app-server/notes")).json<{ notes: { text: string }[] }>().notes;
  expect(notes.map((note) => note.text)).toEqual(["buy milk"]);

  // Codex's final answer is handed back to the voice session on the sideband.
  const append = await finalAppend();
  expect(append.body).toMatchObject({ handoff_id: cue!.handoffId });
  const spoken = (append.body as { output_text: string }).output_text;
  expect(spoken).toMatch(/get_current_time: .*\d{4}-\d{2}-\d{2}/);
  expect(spoken).toContain("save_note:");

  events.close();
  expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  await untilGone(pids);
});

it("a denied save_note saves nothing, and Codex hears the denial", async () => {
  const { client } = await startApp();
  const { sessionId, pids } = await startLive(client);
  const events = await openEvents(client, sessionId);
  mock.codex.queueToolCalls([{ name: "save_note", arguments: { text: "do not keep" } }]);
  mock.codex.requestHandoff({ transcript: "Save a note: do not keep." });

  const pending = await events.next((e) => e.type === "tool.pending_confirmation");
  const deny = await client.post(`/realtime/app-server/${sessionId}/confirm`, { callId: pending.callId, confirmation: { approved: false } });
  expect(deny.status, deny.text).toBe(200);
  expect(await events.next((e) => e.type === "tool.completed")).toMatchObject({ tool: "save_note", approved: false });
  const append = await finalAppend();
  expect((append.body as { output_text: string }).output_text).toContain("save_note:");
  expect((await client.get("/realtime/app-server/notes")).json<{ notes: unknown[] }>().notes).toEqual([]);

  events.close();
  expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  await untilGone(pids);
});

it("lockdown through the bridge: a shell command that would create a file is refused, the file does not exist", async () => {
  const target = join(tmpdir(), `lwc-lockdown-bridge-${process.pid}-${Date.now()}`);
  const { client } = await startApp();
  const { sessionId, pids } = await startLive(client);
  const events = await openEvents(client, sessionId);
  mock.codex.queueToolCalls([
    { name: "exec_command", arguments: { cmd: `touch ${target}` } },
    { name: "shell", arguments: { command: ["touch", target] } },
    { name: "apply_patch", input: `*** Begin Patch\n*** Add File: ${target}\n+written by the agent\n*** End Patch\n` },
  ]);
  mock.codex.requestHandoff({ transcript: "Create a file on the server." });
  await events.next((e) => e.type === "handoff");
  // While an approval request is open, codex tells the voice session right away ("I need your
  // approval…", with the request). The bridge declines it and the turn goes on to its final answer.
  const interim = await mock.waitForRequest(sidebandFrame("conversation.handoff.append"), 20_000);
  expect((interim.body as { output_text: string }).output_text).toContain("apply_patch_approval_request");
  await finalAppend();

  const requests = mock.requests({ path: "/backend-api/codex/responses" });
  // Agent voice leaves the model to codex: it picks gpt-6.1-sol, which speaks the lite dialect.
  expect(requests[0]!.dialect).toBe("lite");
  expect(offeredToolNames(requests[0]!.body).sort()).toEqual(["apply_patch", "get_current_time", "save_note"]);
  const outputs = (requests.at(-1)!.body as { input: Record<string, unknown>[] }).input.filter((item) => String(item.type).endsWith("_output"));
  // The shell tools do not exist; the patch asked for approval and the bridge declined it.
  expect(outputs.map((item) => item.output)).toEqual(["unsupported call: exec_command", "unsupported call: shell", "patch rejected by user"]);
  expect(existsSync(target)).toBe(false);
  expect(events.seen.filter((e) => e.type.startsWith("tool."))).toEqual([]);

  events.close();
  expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  await untilGone(pids);
});

it("the demo's journey: with codexAutoHandoff the voice side asks by itself, and the note waits for approval", async () => {
  mock.setOptions({ codexAutoHandoff: true });
  const { client } = await startApp();
  const { sessionId, pids } = await startLive(client);
  const events = await openEvents(client, sessionId);
  expect(await events.next((e) => e.type === "handoff")).toMatchObject({ transcript: "What time is it? And please save a note: buy milk." });
  expect(await events.next((e) => e.type === "tool.completed")).toMatchObject({ tool: "get_current_time" });
  const pending = await events.next((e) => e.type === "tool.pending_confirmation");
  expect(pending).toMatchObject({ tool: "save_note", review: { text: "Buy milk" } });
  expect((await client.post(`/realtime/app-server/${sessionId}/confirm`, { callId: pending.callId, confirmation: { approved: true } })).status).toBe(200);
  expect((await finalAppend()).body).toMatchObject({ type: "conversation.handoff.append" });
  expect((await client.get("/realtime/app-server/notes")).json<{ notes: { text: string }[] }>().notes.map((note) => note.text)).toEqual(["Buy milk"]);
  events.close();
  expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  await untilGone(pids);
});

it("a 401 on /responses during the handoff: codex asks for a new token, the bridge refreshes through the login, the turn completes", async () => {
  const { client } = await startApp();
  const { sessionId, pids } = await startLive(client);
  mock.addFault({ fault: "backend_unauthorized", times: 1 });
  mock.codex.queueToolCalls([{ name: "get_current_time", arguments: {} }]);
  mock.codex.requestHandoff({ transcript: "What time is it?" });

  const append = await finalAppend();
  expect((append.body as { output_text: string }).output_text).toContain("get_current_time:");
  const refreshes = mock.requests({ path: "/oauth/token" }).filter((r) => (r.body as { grant_type?: string }).grant_type === "refresh_token");
  expect(refreshes).toHaveLength(1);
  const responses = mock.requests({ path: "/backend-api/codex/responses" });
  expect(responses[0]!.status).toBe(401);
  expect(responses.at(-1)!.status).toBe(200);
  expect(responses.at(-1)!.headers.authorization).not.toBe(responses[0]!.headers.authorization);

  expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  await untilGone(pids);
});

it("logout ends the live session and its codex process; a new start replaces the old process", async () => {
  const { client } = await startApp();
  const first = await startLive(client);
  await offer?.close();
  const second = await startLive(client);
  await untilGone(first.pids);
  expect(second.pids.every((pid) => existsSync(`/proc/${pid}`))).toBe(true);

  expect((await client.post("/logout")).status).toBe(200);
  await untilGone(second.pids);
  expect(codexPids().filter((pid) => [...first.pids, ...second.pids].includes(pid))).toEqual([]);
});

it("nothing spoken at rest: the person's words reach no file of the session's folder, during the session or after it", async () => {
  const spoken = `spoken-words-marker-${process.pid}-${Date.now()}`;
  const { client } = await startApp();
  const { sessionId, pids } = await startLive(client);
  const home = homeOf(pids[0]!);
  // Inside the sandbox the home is a tmpfs of its own: read it as codex sees it, through its root.
  const seenByCodex = `/proc/${pids[0]!}/root${home}`;
  expect(existsSync(join(seenByCodex, "codex-home", "config.toml"))).toBe(true);
  mock.codex.queueToolCalls([{ name: "get_current_time", arguments: {} }]);
  mock.codex.requestHandoff({ transcript: `Remember ${spoken}. And what time is it?` });
  await finalAppend();

  // codex writes its logs (TRACE, with every sideband frame: the transcript) in batches every few
  // seconds; before the fix the words were in logs_2.sqlite-wal about 7 s after the turn. Watch
  // the live session's folder for twice that, failing at the first sighting.
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    expect(filesContaining(seenByCodex, spoken), "files holding the spoken words during the session").toEqual([]);
    expect(filesContaining(home, spoken), "files of the host folder holding the spoken words").toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const written = readdirSync(join(seenByCodex, "codex-home"));
  expect(written.some((name) => name.startsWith("state_")), "codex wrote its state there").toBe(true);
  expect(written.filter((name) => name.startsWith("logs_"))).toEqual([]);

  expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  await untilGone(pids);
  // After it: the folder is gone, and no private folder of any codex process holds the words.
  await expect.poll(() => existsSync(home)).toBe(false);
  const folders = readdirSync(tmpdir()).filter((name) => name.startsWith("lwc-codex-"));
  expect(folders.flatMap((name) => filesContaining(join(tmpdir(), name), spoken))).toEqual([]);
});
