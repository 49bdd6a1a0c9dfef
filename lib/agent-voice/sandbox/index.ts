import "server-only";
/**
 * Picks the sandbox every codex process of agent voice runs in (docs/agent-voice.md#the-sandbox):
 * a name (`bwrap`, the default, or `off`) or a ready AgentSandbox (another backend, or a bwrap one
 * with its own options).
 */
import { createBwrapSandbox } from "./bwrap";
import type { AgentSandbox, AgentSandboxName } from "./types";
import { createUnsandboxed } from "./unsandboxed";

export type { AgentSandbox, AgentSandboxName, SandboxStatus, SandboxLimits, SandboxSpawnRequest, SandboxedProcess } from "./types";
export type { AgentLimits, ExceededLimit, LimitMechanism } from "./limits";
export { createBwrapSandbox } from "./bwrap";
export { createUnsandboxed } from "./unsandboxed";

export function resolveAgentSandbox(choice: AgentSandboxName | AgentSandbox | undefined, readOnlyPaths: string[] = []): AgentSandbox {
  if (typeof choice === "object") return choice;
  return (choice ?? "bwrap") === "off" ? createUnsandboxed() : createBwrapSandbox({ readOnlyPaths });
}
