import "server-only";
/**
 * A bwrap sandbox's own network (docs/agent-voice.md#its-own-network): everything one sandbox
 * needs to have a network namespace of its own whose only way out is the server's egress proxy.
 *
 * On the host, in `<home>/egress-<random>/` (mode 0700, removed on close, or with the home):
 * - `proxy.sock`: this sandbox's egress proxy (egress-proxy.ts), listening before bwrap starts;
 * - `relay.cjs`: the relay (egress-relay-script.ts).
 * Inside: `--unshare-net` (only a loopback interface), the egress folder bound read-only over
 * itself (codex cannot replace the socket or the relay), the server's node binary (that one file),
 * and the proxy variables pointing at the relay on 127.0.0.1:RELAY_PORT. The sandbox's first
 * process is `node --jitless relay.cjs RELAY_PORT proxy.sock <command…>`.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EgressTarget } from "./egress-allow-list";
import { createEgressProxy } from "./egress-proxy";
import { EGRESS_RELAY_SCRIPT } from "./egress-relay-script";

/** The relay's port inside the sandbox's own network namespace (nothing else listens there). */
const RELAY_PORT = 3128;
/**
 * Measured with codex 0.169.0 (scripts/codex-proxy-report.ts): http:// requests follow HTTP_PROXY
 * or ALL_PROXY, https:// and every WebSocket (a CONNECT) HTTPS_PROXY or ALL_PROXY; both spellings
 * are set. NO_PROXY stays unset: codex then sends a 127.0.0.1 upstream through the proxy too.
 */
const PROXY_VARIABLES = ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy"];

/**
 * The relay's node runs under the process limits too (local-limiter.ts limits the sandbox's whole
 * process group once codex answered initialize). Node 24 reserves a 512 MiB code range for its JIT
 * as private writable memory, which RLIMIT_DATA counts: measured 574 MB of data (VmData) for the
 * idle relay, over the 512 MB default, so its next allocation failed ("Committing semi space
 * failed") and the session ended. Without a JIT it holds 51 MB, and it never runs JavaScript that
 * needs one: it only pipes sockets.
 */
const RELAY_NODE_FLAGS = ["--jitless"];

export interface SandboxNetworkOptions {
  /** The only `host:port`s the proxy connects to. */
  allow: readonly EgressTarget[];
  /** Each request the proxy refuses (`CONNECT evil.example:443`), for the log: once per sandbox and request. */
  onRefused?(request: string): void;
}

export interface SandboxNetwork {
  /** The egress folder on the host (and inside, at the same path): the proxy's socket and the relay. */
  folder: string;
  /** bwrap arguments: the namespace and the egress folder's read-only bind. Place after the home's. */
  args: string[];
  /** The proxy variables, added to the process's environment. */
  env: Record<string, string>;
  /** The command line bwrap runs: the relay, which then runs `command`. */
  command(command: string[]): string[];
  /** Ends the proxy and every connection through it. Idempotent. */
  close(): Promise<void>;
}

/** The node binary the relay runs with: the server's own. */
export function relayNode(): string {
  return process.execPath;
}

/**
 * Starts this sandbox's egress proxy and writes its relay, synchronously: the proxy's socket
 * listens when this returns (a unix socket binds within `listen()`), so the relay can never dial
 * a socket that is not there yet. Throws when it cannot (the start then fails).
 */
export function openSandboxNetwork(homeDir: string, options: SandboxNetworkOptions): SandboxNetwork {
  const folder = mkdtempSync(join(homeDir, "egress-"));
  const socketPath = join(folder, "proxy.sock");
  const relayPath = join(folder, "relay.cjs");
  writeFileSync(relayPath, EGRESS_RELAY_SCRIPT, { mode: 0o400 });
  // codex retries a refused connection many times: one line for each distinct one is enough.
  const reported = new Set<string>();
  const onRefused = (request: string) => {
    if (reported.has(request)) return;
    reported.add(request);
    options.onRefused?.(request);
  };
  const proxy = createEgressProxy({ allow: options.allow, onRefused });
  proxy.server.on("error", () => undefined);
  proxy.server.listen(socketPath);
  if (!proxy.server.listening) throw new Error("the sandbox's egress proxy could not listen on its socket");
  chmodSync(socketPath, 0o600);
  const proxyUrl = `http://127.0.0.1:${RELAY_PORT}`;
  let closed: Promise<void> | undefined;
  return {
    folder,
    args: ["--unshare-net", "--ro-bind", folder, folder],
    env: Object.fromEntries(PROXY_VARIABLES.map((name) => [name, proxyUrl])),
    command: (command) => [relayNode(), ...RELAY_NODE_FLAGS, relayPath, String(RELAY_PORT), socketPath, ...command],
    close: () =>
      (closed ??= proxy.close().then(() => rmSync(folder, { recursive: true, force: true }))),
  };
}
