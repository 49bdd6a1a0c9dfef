import "server-only";
/**
 * The session relay (docs/agent-voice.md#the-session-relay): the program that runs next to codex,
 * inside the bwrap sandbox or the Vercel Sandbox VM, and is codex's one and only client. It starts
 * `codex app-server` on stdio, numbers every line codex writes (seq 1, 2, …) and keeps the newest
 * ones in a buffer bounded in bytes, so any server instance can attach later, from any seq still
 * buffered, and miss nothing; it writes each input line once per client-chosen id; it ends codex
 * on close, or when no client has been heard from for a while, and ends itself when codex exits.
 *
 *   node session-relay.cjs --listen <socket path | host:port> --token-sha256 <hex> [options] -- <command> [args…]
 *
 * HTTP on a unix socket (bwrap: any instance on the host reaches it) or on TCP (the VM's exposed
 * port, which Vercel routes over HTTPS). Every request needs `Authorization: Bearer <token>`; only
 * the token's SHA-256 is given to the relay. A request with an `Origin` header is refused.
 *
 * Once it listens and codex runs, it writes one line to its stdout:
 * `{"type":"listening","address":…,"epoch":…,"codexPid":…}`; codex's stderr is its stderr. A
 * failure to start is one stderr line starting with SESSION_RELAY_ERROR_PREFIX, and exit code 70.
 * Plain CommonJS with node's own modules only: it runs as a file of its own, where neither the
 * app's folder nor its node_modules exist.
 */

export const SESSION_RELAY_ERROR_PREFIX = "lwc-session-relay:";
/** Lines codex writes longer than this (bytes, without the newline) end the session. */
export const MAX_RELAY_LINE_BYTES = 1024 * 1024;

interface SessionRelayOptions {
  /** The node binary that runs the script. */
  node: string;
  /** Where the script was written (SESSION_RELAY_SCRIPT). */
  scriptPath: string;
  /** A unix socket path (absolute), or `host:port` (port 0: any free one, reported on stdout). */
  listen: string;
  /** Hex SHA-256 of the capability token. */
  tokenSha256: string;
  /** The newest lines kept for late readers, in bytes. Default 8 MiB; at least MAX_RELAY_LINE_BYTES. */
  bufferBytes?: number;
  /** A heartbeat on every event stream this often. Default 15 s. */
  heartbeatMs?: number;
  /** With no client attached and no request for this long, codex is closed. Default 5 min; 0: never. */
  abandonAfterMs?: number;
}

/** The command line that runs the relay, which then runs `command`. */
export function sessionRelayCommand(options: SessionRelayOptions, command: string[]): string[] {
  return [
    options.node,
    options.scriptPath,
    "--listen",
    options.listen,
    "--token-sha256",
    options.tokenSha256,
    ...(options.bufferBytes === undefined ? [] : ["--buffer-bytes", String(options.bufferBytes)]),
    ...(options.heartbeatMs === undefined ? [] : ["--heartbeat-ms", String(options.heartbeatMs)]),
    ...(options.abandonAfterMs === undefined ? [] : ["--abandon-after-ms", String(options.abandonAfterMs)]),
    "--",
    ...command,
  ];
}

export const SESSION_RELAY_SCRIPT = String.raw`"use strict";
const http = require("node:http");
const { spawn } = require("node:child_process");
const { createHash, randomUUID, timingSafeEqual } = require("node:crypto");
const { chmodSync } = require("node:fs");
const { constants } = require("node:os");
const { parseArgs } = require("node:util");

const ERROR_PREFIX = "${SESSION_RELAY_ERROR_PREFIX}";
const MAX_LINE_BYTES = ${MAX_RELAY_LINE_BYTES};
const MAX_INPUT_ID_CHARS = 200;
const REMEMBERED_INPUT_IDS = 10000;
const EXIT_AFTER_STDIN_END_MS = 2000;
const EXIT_AFTER_SIGTERM_MS = 2000;
const LAST_WORDS_MS = 1000;

function fail(what, error) {
  const detail = error ? ": " + ((error && error.code) || (error && error.message) || String(error)) : "";
  process.stderr.write(ERROR_PREFIX + " " + what + detail + "\n");
  process.exit(70);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      listen: { type: "string" },
      "token-sha256": { type: "string" },
      "buffer-bytes": { type: "string", default: String(8 * 1024 * 1024) },
      "heartbeat-ms": { type: "string", default: "15000" },
      "abandon-after-ms": { type: "string", default: "300000" },
    },
  });
} catch (error) {
  fail("bad arguments", error);
}
const options = parsed.values;
const command = parsed.positionals;
const tokenHash = /^[0-9a-f]{64}$/i.test(options["token-sha256"] || "") ? Buffer.from(options["token-sha256"], "hex") : undefined;
const bufferBytes = Number(options["buffer-bytes"]);
const heartbeatMs = Number(options["heartbeat-ms"]);
const abandonAfterMs = Number(options["abandon-after-ms"]);
if (!options.listen) fail("--listen <socket path | host:port> is required");
if (!tokenHash) fail("--token-sha256 <64 hex digits> is required");
if (!Number.isInteger(bufferBytes) || bufferBytes < MAX_LINE_BYTES) fail("--buffer-bytes must be at least " + MAX_LINE_BYTES);
if (!Number.isInteger(heartbeatMs) || heartbeatMs <= 0) fail("--heartbeat-ms must be a positive integer");
if (!Number.isInteger(abandonAfterMs) || abandonAfterMs < 0) fail("--abandon-after-ms must be 0 or a positive integer");
if (command.length === 0) fail("the command to run comes after --");

const epoch = randomUUID();
/** The newest lines, oldest first: { seq, event (its serialized event line), bytes }. */
let buffered = [];
let bufferedBytes = 0;
let lastSeq = 0;
/** The event streams that follow live lines (ServerResponse objects). */
const followers = new Set();
const inputIds = new Set();
let endReason = "exited";
/** Set once codex has ended and its output is read to the end: the serialized exit event. */
let exitEvent;
let exitStatus = 0;
let abandonTimer;

function firstSeq() {
  return buffered.length > 0 ? buffered[0].seq : lastSeq + 1;
}

// ---- codex ----

let codex;
function signalCodexGroup(signal) {
  try {
    process.kill(-codex.pid, signal);
  } catch {
    // ESRCH: the group is gone.
  }
}

let pending = [];
let pendingBytes = 0;
function readCodexOutput(chunk) {
  let start = 0;
  while (start < chunk.length) {
    const newline = chunk.indexOf(10, start);
    const end = newline === -1 ? chunk.length : newline;
    pending.push(chunk.subarray(start, end));
    pendingBytes += end - start;
    if (pendingBytes > MAX_LINE_BYTES) {
      pending = [];
      pendingBytes = 0;
      endReason = "line_too_long";
      signalCodexGroup("SIGKILL");
      codex.stdout.destroy();
      return;
    }
    if (newline === -1) return;
    publishPending();
    start = newline + 1;
  }
}

function publishPending() {
  const line = Buffer.concat(pending, pendingBytes).toString("utf8");
  pending = [];
  pendingBytes = 0;
  if (line.trim() === "") return;
  lastSeq += 1;
  const event = JSON.stringify({ type: "line", seq: lastSeq, line }) + "\n";
  const bytes = Buffer.byteLength(event);
  buffered.push({ seq: lastSeq, event, bytes });
  bufferedBytes += bytes;
  let evicted = 0;
  while (bufferedBytes > bufferBytes && evicted < buffered.length - 1) {
    bufferedBytes -= buffered[evicted].bytes;
    evicted += 1;
  }
  if (evicted > 0) buffered = buffered.slice(evicted);
  for (const follower of followers) send(follower, event);
}

let codexExited = false;
let codexEnded;
const codexEnd = new Promise((resolve) => (codexEnded = resolve));

function exitedWithin(ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    codexEnd.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

let closing;
/** End stdin, wait; SIGTERM to its process group, wait; SIGKILL. Resolves once codex has ended. */
function closeCodex(reason) {
  if (!closing) {
    if (!codexExited) endReason = reason;
    closing = (async () => {
      codex.stdin.end();
      if (await exitedWithin(EXIT_AFTER_STDIN_END_MS)) return;
      signalCodexGroup("SIGTERM");
      if (await exitedWithin(EXIT_AFTER_SIGTERM_MS)) return;
      signalCodexGroup("SIGKILL");
      await codexEnd;
    })();
  }
  return closing;
}

function startCodex() {
  // A process group of its own: the codex launcher starts the native binary, and both must end.
  codex = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"], detached: true });
  codex.once("error", (error) => {
    if (codex.pid === undefined) fail("cannot start the command", error);
  });
  codex.stdin.on("error", () => undefined);
  codex.stdout.on("data", readCodexOutput);
  codex.once("exit", (code, signal) => {
    codexExited = true;
    exitStatus = code === null ? 128 + (constants.signals[signal] || 0) : code;
    // Whatever it started and left behind goes too; its output then reaches its end.
    signalCodexGroup("SIGKILL");
  });
  codex.once("close", (code, signal) => finish(code, signal));
}

/** codex has ended and every line it wrote is published: tell the followers, then end. */
function finish(code, signal) {
  if (pendingBytes > 0) publishPending();
  exitEvent = JSON.stringify({ type: "exit", code, signal, reason: endReason }) + "\n";
  codexEnded();
  clearInterval(heartbeat);
  clearTimeout(abandonTimer);
  for (const follower of followers) follower.end(exitEvent);
  followers.clear();
  // Exit once the last answers are out (streams and close answers end their connections).
  server.close(() => process.exit(exitStatus));
  server.closeIdleConnections();
  setTimeout(() => process.exit(exitStatus), LAST_WORDS_MS);
}

for (const name of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(name, () => closeCodex("signal"));

// ---- clients ----

function armAbandonTimer() {
  clearTimeout(abandonTimer);
  if (abandonAfterMs > 0 && followers.size === 0 && exitEvent === undefined) {
    abandonTimer = setTimeout(() => closeCodex("abandoned"), abandonAfterMs);
  }
}

function send(follower, text) {
  // A reader this far behind is dropped: it reconnects from its last seq (or learns what it missed).
  if (follower.writableLength > bufferBytes + MAX_LINE_BYTES) {
    followers.delete(follower);
    follower.destroy();
    armAbandonTimer();
    return;
  }
  follower.write(text);
}

const heartbeat = setInterval(() => {
  const event = JSON.stringify({ type: "heartbeat", lastSeq }) + "\n";
  for (const follower of followers) send(follower, event);
}, heartbeatMs);

function answer(response, status, body, extraHeaders) {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", "content-length": Buffer.byteLength(text), ...extraHeaders });
  response.end(text);
}

/** An answer before the request body was read: the connection is not reused. */
function refuse(response, status, body) {
  answer(response, status, body, { connection: "close" });
}

function authorized(header) {
  const match = /^Bearer ([\x21-\x7e]+)$/.exec(header || "");
  if (!match) return false;
  return timingSafeEqual(createHash("sha256").update(match[1]).digest(), tokenHash);
}

function streamEvents(response, url) {
  const after = Number(url.searchParams.get("after") || "0");
  const follow = url.searchParams.get("follow") !== "false";
  if (!Number.isSafeInteger(after) || after < 0 || after > lastSeq) {
    return answer(response, 400, { error: "bad_after", epoch, lastSeq });
  }
  if (after + 1 < firstSeq()) return answer(response, 410, { error: "lines_evicted", epoch, firstSeq: firstSeq() });
  response.writeHead(200, { "content-type": "application/x-ndjson", "cache-control": "no-store", "x-accel-buffering": "no", connection: "close" });
  response.write(JSON.stringify({ type: "hello", epoch, firstSeq: firstSeq(), lastSeq }) + "\n");
  for (const entry of buffered) if (entry.seq > after) response.write(entry.event);
  if (exitEvent !== undefined) return response.end(exitEvent);
  if (!follow) return response.end();
  followers.add(response);
  clearTimeout(abandonTimer);
  response.on("close", () => {
    followers.delete(response);
    armAbandonTimer();
  });
}

function writeInput(request, response) {
  const id = request.headers["idempotency-key"];
  if (typeof id !== "string" || id.length === 0 || id.length > MAX_INPUT_ID_CHARS) {
    return refuse(response, 400, { error: "bad_idempotency_key" });
  }
  const chunks = [];
  let size = 0;
  request.on("data", (chunk) => {
    size += chunk.length;
    if (size <= MAX_LINE_BYTES) return chunks.push(chunk);
    // Too long: say so, and read on (discarding) so the client hears it, up to a bound.
    if (!response.headersSent) refuse(response, 413, { error: "line_too_long" });
    chunks.length = 0;
    if (size > 4 * MAX_LINE_BYTES) request.destroy();
  });
  request.on("end", () => {
    if (size > MAX_LINE_BYTES) return;
    const line = Buffer.concat(chunks, size).toString("utf8");
    if (line.trim() === "" || line.includes("\n")) return answer(response, 400, { error: "bad_line" });
    if (inputIds.has(id)) return answer(response, 200, { written: false });
    if (codexExited || closing) return answer(response, 409, { error: "codex_exited" });
    inputIds.add(id);
    if (inputIds.size > REMEMBERED_INPUT_IDS) inputIds.delete(inputIds.values().next().value);
    codex.stdin.write(line + "\n", (error) => {
      if (error) answer(response, 409, { error: "codex_exited" });
      else answer(response, 200, { written: true });
    });
  });
}

const server = http.createServer((request, response) => {
  response.on("error", () => undefined);
  if (request.headers.origin !== undefined) return refuse(response, 403, { error: "origin_refused" });
  if (!authorized(request.headers.authorization)) return refuse(response, 401, { error: "unauthorized" });
  armAbandonTimer();
  const url = new URL(request.url || "/", "http://relay");
  const route = request.method + " " + url.pathname;
  if (route === "GET /events") return streamEvents(response, url);
  if (route === "POST /input") return writeInput(request, response);
  if (route === "POST /close") {
    return closeCodex("closed").then(() =>
      answer(response, 200, { closed: true, reason: endReason, code: codex.exitCode, signal: codex.signalCode }, { connection: "close" }),
    );
  }
  if (route === "GET /healthz") {
    return answer(response, 200, { epoch, codex: exitEvent === undefined ? "running" : "exited", firstSeq: firstSeq(), lastSeq, followers: followers.size });
  }
  const known = ["/events", "/input", "/close", "/healthz"].includes(url.pathname);
  refuse(response, known ? 405 : 404, { error: known ? "method_not_allowed" : "not_found" });
});
server.on("clientError", (error, socket) => socket.destroy());

function listenTarget(listen) {
  if (listen.startsWith("/")) return { path: listen };
  const colon = listen.lastIndexOf(":");
  const port = Number(listen.slice(colon + 1));
  if (colon <= 0 || !Number.isInteger(port) || port < 0 || port > 65535) fail("--listen must be an absolute socket path or host:port");
  return { host: listen.slice(0, colon).replace(/^\[(.*)\]$/, "$1"), port };
}

const target = listenTarget(options.listen);
server.once("error", (error) => fail("cannot listen on " + options.listen, error));
server.listen(target, () => {
  if (target.path) chmodSync(target.path, 0o600);
  const bound = server.address();
  const address = typeof bound === "string" ? bound : options.listen.slice(0, options.listen.lastIndexOf(":")) + ":" + bound.port;
  startCodex();
  if (codex.pid === undefined) return;
  armAbandonTimer();
  process.stdout.write(JSON.stringify({ type: "listening", address, epoch, codexPid: codex.pid }) + "\n");
});
`;
