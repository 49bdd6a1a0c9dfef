#!/usr/bin/env node
// A stand-in for `codex app-server` behind the session relay, in fast tests: it reads one JSON
// line at a time on stdin and answers on stdout. Self-contained (plain Node, no imports of ours),
// so it also runs inside a sandbox or a fake VM.
//
//   relay-echo-child.mjs [--ignore-stdin-end] [--ignore-sigterm]
//
// Each input line {…} is answered with {"echo": {…}}, except:
//   {"do": "lines", "count": n, "pad": k}  n lines {"n": 1} … {"n": n}, each with k more bytes when pad is given
//   {"do": "long_line", "bytes": n}         one line of n bytes ({"pad": "xxx…"}), written in pieces
//   {"do": "exit", "code": c}               exits with code c
//   {"do": "stderr", "text": t}             writes t to stderr
// Stdin's end makes it exit 0, unless --ignore-stdin-end; SIGTERM ends it, unless --ignore-sigterm.
import { createInterface } from "node:readline";

const ignoreStdinEnd = process.argv.includes("--ignore-stdin-end");
const ignoreSigterm = process.argv.includes("--ignore-sigterm");
if (ignoreSigterm) process.on("SIGTERM", () => undefined);

function write(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function writeLongLine(bytes) {
  const prefix = '{"pad":"';
  const suffix = '"}\n';
  const padding = Math.max(0, bytes - prefix.length - suffix.length + 1);
  process.stdout.write(prefix);
  const piece = "x".repeat(64 * 1024);
  for (let left = padding; left > 0; left -= piece.length) process.stdout.write(piece.slice(0, Math.min(left, piece.length)));
  process.stdout.write(suffix);
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    write({ notJson: line });
    return;
  }
  if (message.do === "lines") {
    const pad = message.pad ? { pad: "x".repeat(message.pad) } : {};
    for (let n = 1; n <= message.count; n += 1) write({ n, ...pad });
  }
  else if (message.do === "long_line") writeLongLine(message.bytes);
  else if (message.do === "exit") process.exit(message.code);
  else if (message.do === "stderr") process.stderr.write(`${message.text}\n`);
  else write({ echo: message });
});
lines.on("close", () => {
  if (ignoreStdinEnd) setInterval(() => undefined, 60_000);
  else process.exit(0);
});
