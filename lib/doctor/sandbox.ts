import "server-only";
import { resolveAgentSandbox } from "@/lib/agent-voice/sandbox";
import type { AppServerOptions } from "@/lib/agent-voice/types";
import type { CheckResult } from "./types";

/** Agent voice's sandbox starts a tiny program, built exactly like the real ones (the server's own probe). */
export async function checkSandbox(appServer: AppServerOptions | undefined): Promise<CheckResult> {
  const result = (status: CheckResult["status"], detail: string): CheckResult => ({ check: "agent sandbox", status, detail });
  if (!appServer) return result("skip", "agent voice is off (LWC_CODEX_COMMAND unset, or LWC_REALTIME=off)");
  const sandbox = resolveAgentSandbox(appServer.sandbox, appServer.sandboxReadOnlyPaths);
  if (sandbox.name === "off") return result("warn", "LWC_AGENT_SANDBOX=off: every codex process runs unsandboxed (docs/agent-voice.md#the-sandbox)");
  const status = await sandbox.status();
  if (status.available) return result("ok", `${sandbox.name}: a process starts inside it`);
  return result("fail", `${sandbox.name} cannot start (${status.reason}). ${status.fix}`);
}
