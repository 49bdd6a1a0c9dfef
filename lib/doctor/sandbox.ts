import "server-only";
import { resolveAgentSandbox } from "@/lib/agent-voice/sandbox";
import { agentLimits } from "@/lib/agent-voice/sandbox/limits";
import type { AppServerOptions } from "@/lib/agent-voice/types";
import type { CheckResult } from "./types";

/**
 * Agent voice's sandbox starts a tiny program, built exactly like the real ones (the server's own
 * probe), shows nothing of the app's folder or its env files, and says how each codex process's
 * limits hold.
 */
export async function checkSandbox(appServer: AppServerOptions | undefined): Promise<CheckResult> {
  const result = (status: CheckResult["status"], detail: string): CheckResult => ({ check: "agent sandbox", status, detail });
  if (!appServer) return result("skip", "agent voice is off (LWC_CODEX_COMMAND unset, or LWC_REALTIME=off)");
  const sandbox = resolveAgentSandbox(appServer.sandbox, appServer.sandboxReadOnlyPaths);
  if (sandbox.name === "off") return result("warn", "LWC_AGENT_SANDBOX=off: every codex process runs unsandboxed (docs/agent-voice.md#the-sandbox)");
  const status = await sandbox.status(appServer.command);
  if (!status.available) return result("fail", `${sandbox.name} cannot start (${status.reason}). ${status.fix}`);
  const limits = agentLimits(appServer.limits);
  // RLIMIT_NPROC does not bind root (docs/agent-voice.md#limits).
  const processes = status.limits === "rlimit" && process.getuid?.() === 0 ? "processes not capped (root is exempt from RLIMIT_NPROC)" : `${limits.maxProcesses} processes`;
  return result(
    "ok",
    `${sandbox.name}: a process starts inside it; each codex process: ${limits.memoryMb} MB of memory and ` +
      `${processes} (${status.limits === "cgroup" ? "a cgroup v2 group" : "rlimits"}), ` +
      `${limits.cpuSeconds} s of CPU time, ${limits.homeMb} MB in its home`,
  );
}
