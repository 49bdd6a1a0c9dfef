import "server-only";
/**
 * `LWC_AGENT_SANDBOX=off`: the codex process runs directly as the server's user. It gets only the
 * minimal environment, but it can read every file the server can read (the app's folder, `.env`,
 * /tmp, other processes' /proc/<pid>/environ): see docs/agent-voice.md#the-sandbox.
 */
import { spawn } from "node:child_process";
import { findExecutable } from "./command-files";
import { groupHandle } from "./process-group";
import type { AgentSandbox } from "./types";

export function createUnsandboxed(): AgentSandbox {
  return {
    name: "off",
    status: async () => ({ available: true }),
    spawn(request) {
      const child = spawn(request.command, request.args, {
        cwd: request.cwd,
        env: request.env as NodeJS.ProcessEnv,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
      return groupHandle(child);
    },
    limits(command, env) {
      const executable = findExecutable(command, env.PATH) ?? command;
      return { readOnly: ["everything the server's user can read", executable], writable: ["everything the server's user can write"], hostProcesses: "visible", network: { namespace: "host" } };
    },
  };
}
