// The first process of a fake Vercel Sandbox VM (docs/mock-upstream.md#vercel-sandbox). It runs
// inside the VM's bubblewrap sandbox (its own network and PID namespaces) with node's modules only,
// and is the VM's plumbing; the fake API on the host talks to it through unix sockets in the
// folder bound at --control:
//
//   init.sock          one connection per command: the host writes one JSON line
//                      {command, args, env, cwd}; the answer is JSON lines {started: pid} or
//                      {error}, then {stream: "stdout"|"stderr", data} as it writes, then
//                      {exit: {code, signal}}. A line {signal: n} from the host signals the
//                      command's process group; the host hanging up kills it.
//   port-<P>.sock      each connection is passed to 127.0.0.1:P inside (an exposed port)
//   egress-<P>.sock    served by the host: 127.0.0.1:P inside is passed to it (an allowed host)
//
// It prints "ready" once everything listens.
//
//   node vm-init.mjs --control <folder> [--ports 8080,3000] [--egress 4010]
import { spawn } from "node:child_process";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { control: { type: "string" }, ports: { type: "string", default: "" }, egress: { type: "string", default: "" } },
});
const portsOf = (list) => list.split(",").filter((item) => item !== "").map(Number);

function pipeBoth(a, b) {
  a.pipe(b);
  b.pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  for (const socket of [a, b]) {
    socket.on("error", end);
    socket.on("close", end);
  }
}

function listen(server, target) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(target, resolve);
  });
}

function runCommand(control) {
  const lines = createInterface({ input: control, crlfDelay: Infinity });
  const send = (message) => control.write(`${JSON.stringify(message)}\n`);
  let child;
  lines.on("line", (line) => {
    const message = JSON.parse(line);
    if (!child) {
      child = spawn(message.command, message.args, { cwd: message.cwd, env: message.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
      child.once("error", (error) => {
        send({ error: error.code ?? error.message });
        control.end();
      });
      if (child.pid === undefined) return;
      send({ started: child.pid });
      for (const stream of ["stdout", "stderr"]) {
        child[stream].setEncoding("utf8");
        child[stream].on("data", (data) => send({ stream, data }));
      }
      child.once("close", (code, signal) => {
        send({ exit: { code, signal } });
        control.end();
      });
    } else if (typeof message.signal === "number") {
      signalGroup(child, message.signal);
    }
  });
  control.on("error", () => undefined);
  control.on("close", () => {
    if (child && child.exitCode === null && child.signalCode === null) signalGroup(child, "SIGKILL");
  });
}

function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

await listen(createServer(runCommand), join(values.control, "init.sock"));
for (const port of portsOf(values.ports)) {
  await listen(createServer((client) => pipeBoth(client, connect(port, "127.0.0.1"))), join(values.control, `port-${port}.sock`));
}
for (const port of portsOf(values.egress)) {
  await listen(createServer((client) => pipeBoth(client, connect(join(values.control, `egress-${port}.sock`)))), { port, host: "127.0.0.1" });
}
process.stdout.write("ready\n");
