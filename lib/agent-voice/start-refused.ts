import "server-only";
/**
 * Why an agent-voice start was refused before it began (or was overtaken by a newer one). Plain
 * TypeScript: the route (which must stay free of Node-specific imports) maps it to its answer.
 */
type StartRefusal =
  /** A newer start of the same login (or its logout) came in while this one waited or ran: 409. */
  | "superseded"
  /** The login's ChatGPT account already has `maxSessionsPerAccount` live sessions: 429. */
  | "account_busy"
  /** This server already runs `maxSessions` live sessions: 503. */
  | "server_busy"
  /** The platform that runs each codex refused another sandbox now (Vercel Sandbox's 429): the server's capacity, 503. */
  | "platform_busy"
  /** The server is shutting down: 503. */
  | "shutting_down";

export class StartRefusedError extends Error {
  constructor(
    readonly refusal: StartRefusal,
    message: string,
    /** For `retry-after` (the busy answers). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "StartRefusedError";
  }
}

export function isStartRefused(error: unknown): error is StartRefusedError {
  return error instanceof Error && error.name === "StartRefusedError" && typeof (error as StartRefusedError).refusal === "string";
}
