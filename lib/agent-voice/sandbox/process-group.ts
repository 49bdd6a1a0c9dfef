import "server-only";
/**
 * The handle both local backends return: the child was started `detached`, so it leads a process
 * group (and a session of its own, with no controlling terminal) that everything it starts joins;
 * signalling the group reaches the codex launcher, the native binary and bwrap alike, and the
 * limits are applied to the whole group.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { exceededLimit, type AgentLimits } from "./limits";
import type { AppliedLimits, ProcessLimiter } from "./local-limiter";
import type { SandboxedProcess } from "./types";

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

export function groupHandle(child: ChildProcessWithoutNullStreams, limiter: ProcessLimiter, limits: AgentLimits): SandboxedProcess {
  let applied: AppliedLimits | undefined;
  return {
    process: child,
    terminate: () => signalGroup(child.pid, "SIGTERM"),
    teardown: () => signalGroup(child.pid, "SIGKILL"),
    async applyLimits() {
      if (child.pid === undefined) throw new Error("the process did not start");
      applied = await limiter.apply(child.pid, limits);
    },
    exceededLimit(exit, stderrTail) {
      const exceeded = exceededLimit(exit, stderrTail, applied?.oomKills() ?? 0);
      applied?.release();
      return exceeded;
    },
  };
}
