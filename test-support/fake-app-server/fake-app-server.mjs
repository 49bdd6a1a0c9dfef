#!/usr/bin/env node
// A stand-in for `codex app-server` in fast tests: the same newline-delimited JSON-RPC on stdio
// (no "jsonrpc" field), scripted by a control folder so a test can make it hand off, call tools,
// ask for approvals or refresh, fail, hang or die. Self-contained (plain Node, no imports of ours).
//
// Usage: fake-app-server.mjs --control <dir> app-server
//   <dir>/script.json   read at start: { start: "ok" | "realtime_error" | "thread_start_error" | "hang" | "exit_on_start",
//                       ignoreStdinEnd, ignoreSigterm, answerSdp, realtimeErrorMessage, threadStartErrorMessage, initializeDelayMs }
//   <dir>/commands.jsonl appended by the test; each line one command (acted on by the process that
//                       has a live realtime thread): {do: "handoff"|"tool_call"|"request"|"notify"|"exit"|"realtime_closed", …}
//   <dir>/log.jsonl     written here: {pid, dir: "in"|"out", message} for every message, and one
//                       {pid, type: "spawned", env, cwd, argv} line at start.
import { appendFileSync, existsSync, readFileSync, statSync, openSync, readSync, closeSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { createInterface } from "node:readline";

const controlIndex = process.argv.indexOf("--control");
const controlDir = controlIndex > 0 ? process.argv[controlIndex + 1] : undefined;
if (!controlDir) {
  process.stderr.write("fake-app-server: --control <dir> is required\n");
  process.exit(2);
}
const script = existsSync(join(controlDir, "script.json")) ? JSON.parse(readFileSync(join(controlDir, "script.json"), "utf8")) : {};
const logFile = join(controlDir, "log.jsonl");
const commandsFile = join(controlDir, "commands.jsonl");

function log(entry) {
  appendFileSync(logFile, `${JSON.stringify({ pid: process.pid, ...entry })}\n`);
}
log({ type: "spawned", env: process.env, cwd: process.cwd(), argv: process.argv.slice(2) });

function send(message) {
  log({ dir: "out", message });
  process.stdout.write(`${JSON.stringify(message)}\n`);
}
const notify = (method, params) => send({ method, params, emittedAtMs: Date.now() });

let experimental = false;
let threadId;
let realtimeLive = false;
let planType = "plus";
let accountId = "";
let serverRequestId = 0;
let commandsOffset = 0;

if (script.ignoreSigterm) process.on("SIGTERM", () => log({ type: "ignored SIGTERM" }));

function sendServerRequest(method, params) {
  send({ id: serverRequestId++, method, params });
}

const DEFAULT_ANSWER_SDP = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=fake-answer\r\nt=0 0\r\n";

/** A fake claims no real codex release (the pinned one is lib/upstream/client-version.json). */
const FAKE_VERSION = "0.0.0-fake";

function threadObject(params) {
  const now = Math.floor(Date.now() / 1000);
  return {
    id: threadId,
    sessionId: threadId,
    ephemeral: params.ephemeral === true,
    modelProvider: "fake",
    model: params.model ?? "gpt-5.5",
    preview: "",
    projectId: null,
    createdAt: now,
    updatedAt: now,
    status: { type: "idle" },
    cwd: params.cwd ?? process.cwd(),
    cliVersion: FAKE_VERSION,
    source: "vscode",
    turns: [],
  };
}

function initializeResult(params) {
  return {
    userAgent: `${params.clientInfo?.name ?? "client"}/${FAKE_VERSION} (fake)`,
    codexHome: process.env.CODEX_HOME ?? process.cwd(),
    platformFamily: "unix",
    platformOs: "linux",
  };
}

function handleRequest(message) {
  const { id, method, params = {} } = message;
  const reply = (result) => send({ id, result });
  const fail = (code, text) => send({ id, error: { code, message: text } });
  switch (method) {
    case "initialize":
      experimental = params.capabilities?.experimentalApi === true;
      // A slow start-up (the real binary takes about a second) when the script asks for one.
      if (script.initializeDelayMs) return void setTimeout(() => reply(initializeResult(params)), script.initializeDelayMs);
      return reply(initializeResult(params));
    case "account/login/start":
      if (params.type === "chatgptAuthTokens" && !experimental) {
        return fail(-32600, "account/login/start.chatgptAuthTokens requires experimentalApi capability");
      }
      planType = params.chatgptPlanType ?? "plus";
      accountId = params.chatgptAccountId ?? "";
      reply({ type: "chatgptAuthTokens" });
      notify("account/login/completed", { loginId: null, success: true, error: null });
      return notify("account/updated", { authMode: "chatgptAuthTokens", planType });
    case "thread/start":
      if (params.dynamicTools && !experimental) return fail(-32600, "thread/start.dynamicTools requires experimentalApi capability");
      if (script.start === "thread_start_error") return fail(-32603, script.threadStartErrorMessage ?? "the fake thread/start failed");
      threadId = randomUUID();
      reply({
        thread: threadObject(params),
        model: params.model ?? "gpt-5.5",
        modelProvider: "fake",
        cwd: params.cwd ?? process.cwd(),
        approvalPolicy: params.approvalPolicy ?? "on-request",
        approvalsReviewer: "user",
        sandbox: { type: "readOnly", networkAccess: false },
      });
      return notify("thread/started", { thread: threadObject(params) });
    case "thread/realtime/start": {
      if (!experimental) return fail(-32600, "thread/realtime/start requires experimentalApi capability");
      if (params.threadId !== threadId) return fail(-32600, `thread not found: ${params.threadId}`);
      if (script.start === "exit_on_start") process.exit(3);
      reply({});
      if (script.start === "hang") return;
      if (script.start === "realtime_error") {
        return notify("thread/realtime/error", { threadId, message: script.realtimeErrorMessage ?? "the fake realtime call failed" });
      }
      realtimeLive = true;
      // Only commands written after this start count (an earlier process may have run older ones).
      commandsOffset = existsSync(commandsFile) ? statSync(commandsFile).size : 0;
      notify("thread/realtime/started", { threadId, realtimeSessionId: threadId, version: "v1" });
      return notify("thread/realtime/sdp", { threadId, sdp: script.answerSdp ?? DEFAULT_ANSWER_SDP });
    }
    case "thread/realtime/stop":
      realtimeLive = false;
      reply({});
      return notify("thread/realtime/closed", { threadId: params.threadId, reason: "requested" });
    default:
      return fail(-32601, `${method} is not supported by the fake`);
  }
}

function runCommand(command) {
  switch (command.do) {
    case "handoff":
      return notify("thread/realtime/itemAdded", {
        threadId,
        item: {
          type: "handoff_request",
          handoff_id: command.handoffId ?? "handoff_fake1",
          item_id: "item_fake1",
          input_transcript: command.transcript ?? "",
          active_transcript: [{ role: "user", text: command.transcript ?? "" }],
        },
      });
    case "tool_call":
      return sendServerRequest("item/tool/call", {
        threadId,
        turnId: "turn_fake1",
        callId: command.callId,
        namespace: null,
        tool: command.tool,
        arguments: command.arguments ?? {},
      });
    case "refresh":
      return sendServerRequest("account/chatgptAuthTokens/refresh", { reason: "unauthorized", previousAccountId: accountId });
    case "request":
      return sendServerRequest(command.method, { threadId, ...command.params });
    case "notify":
      return notify(command.method, { threadId, ...command.params });
    case "realtime_closed":
      realtimeLive = false;
      return notify("thread/realtime/closed", { threadId, reason: command.reason ?? "transport_closed" });
    case "exit":
      return process.exit(command.code ?? 1);
    default:
      log({ type: "unknown command", command });
  }
}

// Commands are acted on only by the process with a live realtime thread (a spare process is idle).
setInterval(() => {
  if (!realtimeLive || !existsSync(commandsFile)) return;
  const size = statSync(commandsFile).size;
  if (size <= commandsOffset) return;
  const fd = openSync(commandsFile, "r");
  const buffer = Buffer.alloc(size - commandsOffset);
  readSync(fd, buffer, 0, buffer.length, commandsOffset);
  closeSync(fd);
  const text = buffer.toString("utf8");
  const complete = text.lastIndexOf("\n") + 1;
  commandsOffset += Buffer.byteLength(text.slice(0, complete));
  for (const line of text.slice(0, complete).split("\n")) if (line.trim()) runCommand(JSON.parse(line));
}, 15);

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  log({ dir: "in", message });
  if (typeof message.method === "string" && message.id !== undefined) handleRequest(message);
});
lines.on("close", () => {
  log({ type: "stdin closed" });
  if (!script.ignoreStdinEnd) process.exit(0);
});
