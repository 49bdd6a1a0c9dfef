import "server-only";
/**
 * Thrown by a sandbox's `spawn` when the process cannot start in it as configured (it would show
 * the app's folder or an env file the app read): the start answers 503 `agent_sandbox_unavailable`
 * like an unavailable sandbox, with the reason and the fix in the log. Plain TypeScript: the route
 * recognises it by name.
 */
export class SandboxUnavailableError extends Error {
  constructor(
    readonly reason: string,
    readonly fix: string,
  ) {
    super(`the sandbox cannot start: ${reason}`);
    this.name = "SandboxUnavailableError";
  }
}

export function isSandboxUnavailable(error: unknown): error is SandboxUnavailableError {
  return error instanceof Error && error.name === "SandboxUnavailableError" && typeof (error as SandboxUnavailableError).fix === "string";
}
