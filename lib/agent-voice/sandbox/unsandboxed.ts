import "server-only";
/**
 * `LWC_AGENT_SANDBOX=off`: the codex process runs directly as the server's user. It gets only the
 * minimal environment, but it can read every file the server can read (the app's folder, `.env`,
 * /tmp, other processes' /proc/<pid>/environ): see docs/agent-voice.md#the-sandbox. Its memory,
 * process and CPU limits still hold (its home's size does not: it writes on the host's disk).
 */
import { spawn } from "node:child_process";
import { findExecutable } from "./command-files";
import { createLocalLimiter, type ProcessLimiter } from "./local-limiter";
import { groupHandle } from "./process-group";
import { startLocalProcess } from "./local-process";
import type { LocalSandbox, SandboxSpawnRequest, SandboxedProcess } from "./types";

export function createUnsandboxed(options: { limiter?: ProcessLimiter } = {}): LocalSandbox {
  const limiter = options.limiter ?? createLocalLimiter();
  function spawnDirectly(request: SandboxSpawnRequest): SandboxedProcess {
    const child = spawn(request.command, request.args, {
      cwd: request.cwd,
      env: request.env as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    return groupHandle(child, limiter, request.limits);
  }
  return {
    name: "off",
    warmSpare: true,
    async status() {
      const limits = await limiter.status();
      return limits.available ? { available: true, limits: limits.mechanism } : limits;
    },
    spawn: spawnDirectly,
    start: (request) => startLocalProcess("off", spawnDirectly, request),
    limits(command, env) {
      const executable = findExecutable(command, env.PATH) ?? command;
      return { readOnly: ["everything the server's user can read", executable], writable: ["everything the server's user can write"], hostProcesses: "visible", network: { namespace: "host" } };
    },
  };
}
