import "server-only";
import { resolveAgentSandbox, sandboxNetworkOptions } from "@/lib/agent-voice/sandbox";
import { agentLimits } from "@/lib/agent-voice/sandbox/limits";
import type { AgentVoiceOptions } from "@/lib/agent-voice/types";
import type { CheckResult } from "./types";

/**
 * Agent voice's sandbox starts a tiny program, built exactly like the real ones (the server's own
 * probe: its own network and the egress relay included), shows nothing of the app's folder or its
 * env files, and says how each codex process's limits hold and what its network reaches.
 */
export async function checkSandbox(appServer: AgentVoiceOptions | undefined): Promise<CheckResult> {
  const result = (status: CheckResult["status"], detail: string): CheckResult => ({ check: "agent sandbox", status, detail });
  if (!appServer) return result("skip", "agent voice is off (LWC_CODEX_COMMAND unset, or LWC_REALTIME=off)");
  // The resolved options' allow-list: the upstream's hosts, then LWC_AGENT_SANDBOX_ALLOW_HOSTS.
  const network = sandboxNetworkOptions(appServer.sandboxAllowHosts ?? []);
  const sandbox = resolveAgentSandbox(appServer.sandbox, appServer.sandboxReadOnlyPaths, network, { ...(appServer.vercelSandbox ? { settings: appServer.vercelSandbox } : {}) });
  if (sandbox.name === "off") return result("warn", "LWC_AGENT_SANDBOX=off: every codex process runs unsandboxed (docs/agent-voice.md#the-sandbox)");
  const status = await sandbox.status(appServer.command);
  if (!status.available) return result("fail", `${sandbox.name} cannot start (${status.reason}). ${status.fix}`);
  if (status.limits === "vm") {
    return result("ok", `vercel: each live session's codex runs in a Vercel Sandbox microVM of its own, started from the configured snapshot (not started by this check)`);
  }
  const limits = agentLimits(appServer.limits);
  // RLIMIT_NPROC does not bind root (docs/agent-voice.md#limits).
  const processes = status.limits === "rlimit" && process.getuid?.() === 0 ? "processes not capped (root is exempt from RLIMIT_NPROC)" : `${limits.maxProcesses} processes`;
  const reach = sandbox.limits(appServer.command, { PATH: process.env.PATH ?? "/usr/bin:/bin" }).network;
  return result(
    "ok",
    `${sandbox.name}: a process starts inside it; each codex process: ${limits.memoryMb} MB of memory and ` +
      `${processes} (${status.limits === "cgroup" ? "a cgroup v2 group" : "rlimits"}), ` +
      `${limits.cpuSeconds} s of CPU time, ${limits.homeMb} MB in its home; ` +
      (reach.namespace === "own"
        ? `its own network: only ${reach.reachable.join(", ") || "nothing"}, through the server's egress proxy`
        : "the host's network"),
  );
}
