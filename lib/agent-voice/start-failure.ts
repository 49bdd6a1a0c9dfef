import "server-only";
/**
 * Why a start did not reach an answer SDP: the route answers 502 with a fixed sentence per kind,
 * and the details (the command, a path, the sandbox's or codex's own words) go to the log line
 * only. Plain TypeScript: the route (which must stay free of Node-specific imports) reads it.
 */
const SENTENCES = {
  /** The codex process did not start or did not initialise. */
  not_started: "The agent could not start on this server. The server's log says why.",
  /** The provider refused or failed the realtime call. */
  provider_refused: "The voice service refused the call. Try again shortly.",
  /** codex refused a step of the start. */
  agent_refused: "The agent could not start the voice session. Try again shortly.",
  /** The process exited during the start. */
  stopped: "The agent stopped while the voice session was starting. Try again.",
  /** No answer SDP within the start timeout. */
  timeout: "The agent did not answer in time. Try again.",
} as const;

type StartFailure = keyof typeof SENTENCES;

export class LiveSessionStartError extends Error {
  constructor(
    readonly failure: StartFailure,
    /** For the log line only. */
    readonly detail: string,
  ) {
    super(SENTENCES[failure]);
    this.name = "LiveSessionStartError";
  }
}

export function isLiveSessionStartError(error: unknown): error is LiveSessionStartError {
  return error instanceof Error && error.name === "LiveSessionStartError" && typeof (error as LiveSessionStartError).detail === "string";
}
