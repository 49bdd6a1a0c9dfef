import "server-only";
/**
 * The relay each bwrap sandbox runs as its first process, with the server's own node
 * (sandbox-network.ts writes it into the sandbox's egress folder). Inside the sandbox's network
 * namespace nothing but loopback exists, and codex's proxy variables take a TCP address, so the
 * relay listens on 127.0.0.1:<port> there and passes each connection to the egress proxy's unix
 * socket, bound into the sandbox. Once it listens it starts the command (codex) with the same
 * stdio and environment, passes on SIGTERM/SIGINT/SIGHUP, and exits with the command's status.
 *
 *   node relay.cjs <port> <proxy socket> <command> [args…]
 *
 * It never writes to stdout (codex's JSON-RPC channel) and keeps codex's stdout and stderr
 * blocking; a failure to start is one stderr line starting with RELAY_ERROR_PREFIX, and exit code
 * 70. Plain CommonJS with node's own modules only: it runs as a file of its own, outside the app's
 * bundle.
 */

export const RELAY_ERROR_PREFIX = "lwc-egress-relay:";

export const EGRESS_RELAY_SCRIPT = `"use strict";
const net = require("node:net");
const { spawn } = require("node:child_process");
const { constants } = require("node:os");

const [port, socketPath, command, ...args] = process.argv.slice(2);
function fail(what, error) {
  process.stderr.write(${JSON.stringify(RELAY_ERROR_PREFIX)} + " " + what + ": " + ((error && error.code) || String(error)) + "\\n");
  process.exit(70);
}

// codex's stdout and stderr are the relay's own (the same open files). Node opens a pipe or socket
// as process.stdout or process.stderr non-blocking, and does so on first use, which node itself
// makes: stream.pipe() compares its destination with both, and every socket's destroy with
// process.stderr. Left so, codex's long writes (a JSON-RPC line of megabytes) fail with EAGAIN.
// So both are opened now, before codex starts, and set back to blocking. (stdin is never opened:
// node would read it.)
for (const stream of [process.stdout, process.stderr]) stream._handle?.setBlocking?.(true);

const relay = net.createServer({ pauseOnConnect: true }, (client) => {
  const proxy = net.connect(socketPath);
  const end = () => {
    client.destroy();
    proxy.destroy();
  };
  proxy.once("connect", () => {
    client.pipe(proxy);
    proxy.pipe(client);
    client.resume();
  });
  for (const socket of [client, proxy]) {
    socket.once("error", end);
    socket.once("close", end);
  }
});
relay.once("error", (error) => fail("cannot listen on 127.0.0.1:" + port, error));
relay.listen(Number(port), "127.0.0.1", () => {
  const child = spawn(command, args, { stdio: "inherit" });
  child.once("error", (error) => fail("cannot start the command", error));
  child.once("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
});
`;
