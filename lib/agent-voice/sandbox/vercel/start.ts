import "server-only";
/**
 * startVercelSandbox(options): one agent-voice session's sandbox on Vercel Sandbox, and an open
 * channel to the codex in it.
 *
 * 1. Creates the sandbox from the codex snapshot (snapshot.ts): not persistent (nothing is kept
 *    when it stops), the relay's port exposed, the given vCPUs and lifetime, the tags, and a
 *    network policy that lets it reach only the provider's hosts.
 * 2. Writes codex's home: a 0700 folder with config.toml (and auth.json when given), each 0600.
 * 3. Starts the session relay detached, which starts `codex app-server` on stdio; only the relay
 *    token's SHA-256 goes into the VM.
 * 4. Waits until the relay answers at the url the API reported for its port, and opens a channel.
 *
 * Any failure after the create stops the sandbox before it throws (a VercelSandboxError: a fixed
 * sentence, details for the log). Resolves with the handle to store, the token to seal, and the
 * channel.
 */
import { Sandbox, type NetworkPolicy } from "@vercel/sandbox";
import { openRelayChannel, type RelayChannel, type RelayChannelOptions, type RelayLine } from "../../relay/relay-client";
import { newRelayToken } from "../../relay/relay-token";
import { sessionRelayCommand } from "../../relay/session-relay-script";
import type { vercelSandboxApi } from "../../vercel-sandbox-api";
import { sandboxApiFailure, VercelSandboxError } from "./errors";
import type { VercelSandboxHandle } from "./handle";
import { APP_TAG, RELAY_PORT, VM_CODEX, VM_CODEX_HOME, VM_CWD, VM_HOME, VM_RELAY_SCRIPT } from "./layout";
import { waitForRelay } from "./relay-ready";

export type VercelSandboxApi = ReturnType<typeof vercelSandboxApi>;
export type ChannelTimeouts = Pick<RelayChannelOptions, "heartbeatTimeoutMs" | "requestTimeoutMs" | "reconnectForMs">;

/** How long a start waits for the relay's first answer, unless told otherwise. */
export const DEFAULT_RELAY_START_TIMEOUT_MS = 60_000;

interface StartVercelSandboxOptions {
  /** vercelSandboxApi(LWC_VERCEL_SANDBOX_API_URL, env): the SDK's fetch and credentials. */
  api: VercelSandboxApi;
  /** LWC_VERCEL_SANDBOX_SNAPSHOT. */
  snapshotId: string | undefined;
  /** LWC_VERCEL_SANDBOX_VCPUS (2 GB of memory each). */
  vcpus: number;
  /** LWC_VERCEL_SANDBOX_TIMEOUT_SECONDS × 1000: the VM's lifetime, the backstop for a session nobody ends. */
  timeoutMs: number;
  /** The deploy this sandbox belongs to, its `deploy` tag (next to `app=lwc-agent-voice`): `VERCEL_DEPLOYMENT_ID` on Vercel. */
  deploy: string;
  /** providerNetworkPolicy(codexUpstreamUrls(…)). */
  networkPolicy: NetworkPolicy;
  /** codex's home: config.toml (codexConfigToml()), and auth.json when codex should hold the login itself. */
  codexHome: { configToml: string; authJson?: string };
  /** Each line codex writes; without it the channel only sends. */
  onLine?(line: RelayLine): void;
  /** From the relay's start to its first answer. Default 60 s. */
  startTimeoutMs?: number;
  /** The relay's heartbeat on event streams (default 15 s) and its give-up time with no client (default 5 min). */
  relay?: { heartbeatMs?: number; abandonAfterMs?: number };
  /** The channel's timeouts (relay-client.ts defaults). */
  channel?: ChannelTimeouts;
}

interface StartedVercelSandbox {
  handle: VercelSandboxHandle;
  /** The relay's capability token: seal it with the handle, never send it to a browser. */
  token: string;
  channel: RelayChannel;
}

async function createSandbox(options: StartVercelSandboxOptions): Promise<Sandbox> {
  if (!options.snapshotId) throw new VercelSandboxError("not_configured", "LWC_VERCEL_SANDBOX_SNAPSHOT is not set");
  try {
    return await Sandbox.create({
      ...options.api,
      source: { type: "snapshot", snapshotId: options.snapshotId },
      ports: [RELAY_PORT],
      resources: { vcpus: options.vcpus },
      timeout: options.timeoutMs,
      persistent: false,
      networkPolicy: options.networkPolicy,
      tags: { [APP_TAG.key]: APP_TAG.value, deploy: options.deploy },
    });
  } catch (error) {
    throw sandboxApiFailure(error, "create");
  }
}

async function writeCodexHome(sandbox: Sandbox, files: StartVercelSandboxOptions["codexHome"]): Promise<void> {
  // A fresh, private folder whatever the snapshot holds there.
  const made = await sandbox.runCommand("sh", ["-c", 'rm -rf "$1" && mkdir -m 700 "$1"', "sh", VM_CODEX_HOME]);
  if (made.exitCode !== 0) throw new VercelSandboxError("not_started", `making codex's home exited with code ${made.exitCode}`);
  await sandbox.writeFiles([
    { path: `${VM_CODEX_HOME}/config.toml`, content: Buffer.from(files.configToml), mode: 0o600 },
    ...(files.authJson === undefined ? [] : [{ path: `${VM_CODEX_HOME}/auth.json`, content: Buffer.from(files.authJson), mode: 0o600 }]),
  ]);
}

export async function startVercelSandbox(options: StartVercelSandboxOptions): Promise<StartedVercelSandbox> {
  const sandbox = await createSandbox(options);
  try {
    const url = sandbox.routes.find((route) => route.port === RELAY_PORT)?.url.replace(/\/+$/, "");
    if (!url) throw new VercelSandboxError("unavailable", `the Sandbox API reported no route for port ${RELAY_PORT}`);
    await writeCodexHome(sandbox, options.codexHome);
    const { token, sha256 } = newRelayToken();
    const [node, ...args] = sessionRelayCommand(
      { node: "node", scriptPath: VM_RELAY_SCRIPT, listen: `0.0.0.0:${RELAY_PORT}`, tokenSha256: sha256, ...options.relay },
      [VM_CODEX, "app-server"],
    );
    const command = await sandbox.runCommand({ cmd: node!, args, cwd: VM_CWD, env: { HOME: VM_HOME, CODEX_HOME: VM_CODEX_HOME }, detached: true });
    const epoch = await waitForRelay(command, url, token, options.startTimeoutMs ?? DEFAULT_RELAY_START_TIMEOUT_MS);
    const channel = openRelayChannel({ ...options.channel, address: { url }, token, epoch, ...(options.onLine ? { onLine: options.onLine } : {}) });
    return { handle: { kind: "vercel-sandbox", sandboxId: sandbox.name, relayUrl: url, relayEpoch: epoch }, token, channel };
  } catch (error) {
    await sandbox.stop().catch(() => undefined);
    throw sandboxApiFailure(error, "start");
  }
}
