import "server-only";
/**
 * Picks the sandbox every codex process of agent voice runs in (docs/agent-voice.md#the-sandbox):
 * a name (`bwrap`, the default, `vercel` with its settings, or `off`) or a ready AgentSandbox
 * (another backend, or a bwrap one with its own options).
 */
import { LOG_PREFIX, type Logger } from "@/lib/logger";
import { createBwrapSandbox } from "./bwrap";
import { parseAllowEntry, uniqueTargets } from "./egress-allow-list";
import type { SandboxNetworkOptions } from "./sandbox-network";
import type { AgentSandbox, AgentSandboxName, VercelSandboxSettings } from "./types";
import { createUnsandboxed } from "./unsandboxed";
import { createVercelSandboxBackend } from "./vercel/backend";
import type { StartUpSweepContext } from "./vercel/start-up-sweep";

export type { AgentSandbox, AgentSandboxName, SandboxStatus, SandboxLimits, SandboxStartRequest, StartedSandbox, SandboxHandle, CodexChannel } from "./types";
export type { AgentLimits, ExceededLimit, LimitMechanism } from "./limits";
export { createBwrapSandbox } from "./bwrap";
export { createUnsandboxed } from "./unsandboxed";

/**
 * What the sandbox's network lets through: `allowHosts` (URLs or `host:port`, the handler's
 * resolved `sandboxAllowHosts`), and a log line for every request its egress proxy refuses.
 */
export function sandboxNetworkOptions(allowHosts: readonly string[], logger?: Logger): SandboxNetworkOptions {
  return {
    allow: uniqueTargets(allowHosts.map(parseAllowEntry)),
    ...(logger
      ? {
          onRefused: (request: string) =>
            logger.warn(
              `${LOG_PREFIX} agent voice: the sandbox refused codex's ${request}: not one of the upstream hosts ` +
                "(LWC_AGENT_SANDBOX_ALLOW_HOSTS adds one; docs/agent-voice.md#its-own-network)",
            ),
        }
      : {}),
  };
}

export function resolveAgentSandbox(
  choice: AgentSandboxName | AgentSandbox | undefined,
  readOnlyPaths: string[] = [],
  network?: SandboxNetworkOptions,
  vercel?: { settings?: VercelSandboxSettings; logger?: Logger; startUpSweep?: StartUpSweepContext },
): AgentSandbox {
  if (typeof choice === "object") return choice;
  if (choice === "off") return createUnsandboxed();
  if (choice === "vercel") {
    if (!vercel?.settings) throw new Error("LWC_AGENT_SANDBOX=vercel needs the Vercel Sandbox settings (realtime.agentVoice.vercelSandbox)");
    return createVercelSandboxBackend(vercel.settings, {
      env: process.env,
      allow: network?.allow ?? [],
      ...(vercel.logger ? { logger: vercel.logger } : {}),
      ...(vercel.startUpSweep ? { startUpSweep: vercel.startUpSweep } : {}),
    });
  }
  return createBwrapSandbox({ readOnlyPaths, ...(network ? { network } : {}) });
}
