import "server-only";
/**
 * `LWC_AGENT_SANDBOX=vercel`: the Vercel Sandbox backend behind the one sandbox interface
 * (../types.ts). Each codex runs in a microVM of its own, started from the snapshot
 * (startVercelSandbox); the channel is the session relay's (relay-client.ts); the VM's vCPUs,
 * memory, lifetime and network policy are its limits; every stop ends the VM (stopVercelSandbox),
 * not only codex. A channel that ends for any reason but codex's own exit (the VM stopped, the
 * relay unreachable) stops the VM too: nothing is left running that no instance follows.
 */
import type { Logger } from "@/lib/logger";
import { LOG_PREFIX } from "@/lib/logger";
import { onePerProcess } from "@/lib/one-per-process";
import { BUSY_RETRY_AFTER_SECONDS } from "../../defaults";
import { StartRefusedError } from "../../start-refused";
import type { RelayChannel, RelayLine } from "../../relay/relay-client";
import { vercelSandboxApi } from "../../vercel-sandbox-api";
import type { EgressTarget } from "../egress-allow-list";
import type { AgentSandbox, CodexChannel, SandboxExit, SandboxHandle, SandboxStatus, StartedSandbox, VercelSandboxSettings } from "../types";
import { SandboxUnavailableError } from "../unavailable";
import { VercelSandboxError } from "./errors";
import type { VercelSandboxHandle } from "./handle";
import { VM_CWD } from "./layout";
import { reopenVercelSandbox } from "./reopen";
import { startVercelSandbox, type VercelSandboxApi } from "./start";
import { sweepAtStartUp, type StartUpSweepContext } from "./start-up-sweep";
import { stopVercelSandbox } from "./stop";

/** A close that gets no answer this long is left to the VM's stop. */
const CLOSE_WAIT_MS = 5_000;
const METADATA_SUBNET = "169.254.169.254/32";

interface VercelBackendContext {
  /** Where the credentials come from (VERCEL_TOKEN, VERCEL_TEAM_ID, VERCEL_PROJECT_ID; or the OIDC token), and VERCEL_DEPLOYMENT_ID. */
  env: Record<string, string | undefined>;
  /** The hosts the VM may reach: the handler's resolved allow list. */
  allow: readonly EgressTarget[];
  logger?: Logger;
  /** Given by the server that serves agent voice (not the doctor): sweep the sandboxes no live session uses, once. */
  startUpSweep?: StartUpSweepContext;
}

const CREDENTIALS_FIX =
  "Set VERCEL_TOKEN with VERCEL_TEAM_ID and VERCEL_PROJECT_ID, or none of them to use Vercel's OIDC token (on Vercel: enable OIDC for the project).";
const SNAPSHOT_FIX =
  "Make the snapshot with `npm run agent-voice:snapshot` and set LWC_VERCEL_SANDBOX_SNAPSHOT to the id it prints " +
  "(docs/agent-voice.md#vercel-sandbox-backend).";

/** How codex ended, as the interface says it, from how the relay channel ended. */
function exitOf(end: Awaited<RelayChannel["ended"]>): SandboxExit {
  if (end.reason !== "exited") return { code: null, signal: null };
  return { code: end.code, signal: (end.signal as NodeJS.Signals | null) ?? null, ...(end.why === "line_too_long" ? { limit: "message" as const } : {}) };
}

/**
 * A start that failed, as the layers above know failures: what only the operator can fix (no or a
 * missing snapshot, refused credentials) is an unavailable sandbox (503 agent_sandbox_unavailable,
 * the fix in the log); the API refusing another sandbox now is a refused start (503 realtime_busy,
 * with the API's Retry-After); anything else an error whose message has the sentence and the log detail.
 */
function startFailure(error: unknown, logger: Logger | undefined): Error {
  if (!(error instanceof VercelSandboxError)) return error instanceof Error ? error : new Error(String(error));
  if (error.failure === "refused") {
    logger?.warn(`${LOG_PREFIX} agent voice: Vercel Sandbox refused another sandbox (${error.detail}); the start is answered as busy`);
    return new StartRefusedError("platform_busy", error.message, error.retryAfterSeconds ?? BUSY_RETRY_AFTER_SECONDS);
  }
  if (error.failure === "not_configured" || error.failure === "snapshot_missing") return new SandboxUnavailableError(`${error.message} (${error.detail})`, SNAPSHOT_FIX);
  if (error.failure === "credentials") return new SandboxUnavailableError(`${error.message} (${error.detail})`, CREDENTIALS_FIX);
  return new Error(`${error.message} (${error.detail})`);
}

export function createVercelSandboxBackend(settings: VercelSandboxSettings, context: VercelBackendContext): AgentSandbox {
  const options = { ...settings, ...context };
  // The VM's network policy names hosts (it has no ports); the metadata address stays denied.
  const hosts = [...new Set(context.allow.map((target) => target.host))];
  // Sandboxes are tagged with the deploy, so a sweep can tell this deploy's from older ones.
  const deploy = context.env.VERCEL_DEPLOYMENT_ID?.trim() || "local";
  let api: VercelSandboxApi | undefined;
  let apiProblem: string | undefined;
  try {
    api = vercelSandboxApi(options.apiUrl, options.env);
  } catch (error) {
    apiProblem = (error as Error).message;
  }
  // Not awaited by anyone: starts meanwhile are safe (a young sandbox is kept). Once per process in
  // `next dev`, whose new handler on each save must not sweep the sandboxes of this process's own sessions.
  const sweepWith = api;
  if (sweepWith && context.startUpSweep) {
    const sweep = context.startUpSweep;
    onePerProcess("vercel-sandbox-start-up-sweep", "", () => sweepAtStartUp(sweepWith, sweep, context.logger));
  }

  async function stopQuietly(sandboxId: string): Promise<void> {
    try {
      await stopVercelSandbox(api!, { sandboxId });
    } catch (error) {
      const detail = error instanceof VercelSandboxError ? error.detail : "error";
      options.logger?.warn(`${LOG_PREFIX} agent voice: stopping Vercel sandbox ${sandboxId} failed (${detail}); it ends at its lifetime (LWC_VERCEL_SANDBOX_TIMEOUT_SECONDS)`);
    }
  }

  /** Lines the relay delivers before codex's listener is set wait for it. */
  function relayLines() {
    let listener: ((line: string) => void) | undefined;
    const early: string[] = [];
    return {
      onLine: (line: RelayLine) => (listener ? listener(line.line) : early.push(line.line)),
      listen(next: (line: string) => void) {
        listener = next;
        for (const line of early.splice(0)) next(line);
      },
    };
  }

  /** The interface's view of a VM and its relay channel, started here or reopened from another instance's handle. */
  function asStarted(handle: VercelSandboxHandle, relay: RelayChannel, token: string, lines: ReturnType<typeof relayLines>): StartedSandbox {
    let ended = false;
    let handedOff = false;
    const exited = relay.ended.then(async (end) => {
      ended = true;
      // The VM goes with its codex, however the channel ended; unless another instance follows it now.
      if (!handedOff) await stopQuietly(handle.sandboxId);
      return exitOf(end);
    });
    const channel: CodexChannel = {
      send(line) {
        if (ended) return;
        // A send that fails for good ends the channel; `exited` says so.
        relay.send(line).catch(() => undefined);
      },
      onLine: (next) => lines.listen(next),
      exited,
      stderrTail: () => "",
    };
    let stopping: Promise<void> | undefined;
    return {
      handle,
      channel,
      workDir: VM_CWD,
      applyLimits: async () => undefined,
      stop() {
        // Handed off: codex and its VM are the next instance's now.
        if (handedOff) return Promise.resolve();
        stopping ??= (async () => {
          await Promise.race([relay.close(), new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
          relay.detach();
          await stopQuietly(handle.sandboxId);
          await exited;
        })();
        return stopping;
      },
      stopNow() {
        if (handedOff) return;
        // An exit handler cannot wait: the stop is sent; the VM's lifetime is the backstop.
        relay.detach();
        void stopQuietly(handle.sandboxId);
      },
      handOff() {
        handedOff = true;
        const cursor = relay.lastSeq();
        relay.detach();
        return { secret: token, cursor };
      },
    };
  }

  async function start(request: { configToml?: string }): Promise<StartedSandbox> {
    if (!api) throw new VercelSandboxError("credentials", apiProblem ?? "no API client");
    const lines = relayLines();
    const started = await startVercelSandbox({
      api,
      snapshotId: options.snapshotId,
      vcpus: options.vcpus,
      timeoutMs: options.timeoutMs,
      deploy,
      networkPolicy: { allow: hosts, subnets: { deny: [METADATA_SUBNET] } },
      codexHome: { configToml: request.configToml ?? "" },
      onLine: lines.onLine,
    }).catch((error: unknown) => {
      throw startFailure(error, options.logger);
    });
    return asStarted(started.handle, started.channel, started.token, lines);
  }

  async function reopen(handle: SandboxHandle, secret: string, cursor: number): Promise<StartedSandbox> {
    if (!api) throw new VercelSandboxError("credentials", apiProblem ?? "no API client");
    if (handle.kind !== "vercel-sandbox") throw new Error("not a Vercel sandbox's handle");
    const lines = relayLines();
    const relay = await reopenVercelSandbox(api, handle, secret, { after: cursor, onLine: lines.onLine });
    return asStarted(handle, relay, secret, lines);
  }

  return {
    name: "vercel",
    warmSpare: false,
    async status(): Promise<SandboxStatus> {
      if (apiProblem) return { available: false, reason: apiProblem, fix: CREDENTIALS_FIX };
      if (!options.snapshotId) return { available: false, reason: "LWC_VERCEL_SANDBOX_SNAPSHOT is not set", fix: SNAPSHOT_FIX };
      if (hosts.length === 0) return { available: false, reason: "no host is allowed for the sandbox's network", fix: "Set LWC_CODEX_BASE_URL and LWC_ISSUER_URL (or leave them at the provider's)." };
      return { available: true, limits: "vm" };
    },
    start,
    reopen,
    limits() {
      return {
        readOnly: ["nothing of this server: the VM's own disk, from the snapshot"],
        writable: ["the VM's own disk (gone when it stops)"],
        hostProcesses: "hidden",
        network: { namespace: "own", reachable: hosts },
      };
    },
  };
}
