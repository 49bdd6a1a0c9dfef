import "server-only";
/**
 * The handle both local backends return: the child was started `detached`, so it leads a process
 * group (and a session of its own, with no controlling terminal) that everything it starts joins;
 * signalling the group reaches the codex launcher, the native binary and bwrap alike.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import type { SandboxedProcess } from "./types";

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

export function groupHandle(child: ChildProcessWithoutNullStreams): SandboxedProcess {
  return {
    process: child,
    terminate: () => signalGroup(child.pid, "SIGTERM"),
    teardown: () => signalGroup(child.pid, "SIGKILL"),
  };
}
