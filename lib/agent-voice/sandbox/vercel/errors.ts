import "server-only";
/**
 * Why the Vercel Sandbox backend could not start, reach or stop a sandbox: a fixed sentence per
 * kind (safe to show: no address, no path, no token), and the details for the log line only.
 */
import { APIError } from "@vercel/sandbox";

const SENTENCES = {
  /** No snapshot id is configured. */
  not_configured: "No Vercel Sandbox snapshot is configured for agent voice.",
  /** The API answered 429: too many sandboxes running or starting for the plan (the start answers 503 realtime_busy). */
  refused: "Vercel Sandbox refused to start another sandbox now. Try again shortly.",
  /** The API refused the credentials (401, 403). */
  credentials: "Vercel Sandbox refused the server's credentials.",
  /** The configured snapshot does not exist (any more). */
  snapshot_missing: "The agent's Vercel Sandbox snapshot does not exist.",
  /** Any other failure of the API, or no answer. */
  unavailable: "Vercel Sandbox could not start a sandbox. Try again shortly.",
  /** The sandbox started, but the relay and codex in it did not. */
  not_started: "The agent could not start in its sandbox.",
  /** The sandbox is no longer running (stopped, timed out, failed). */
  ended: "The agent's sandbox has ended.",
} as const;

type VercelSandboxFailure = keyof typeof SENTENCES;

export class VercelSandboxError extends Error {
  constructor(
    readonly failure: VercelSandboxFailure,
    /** For the log line only: statuses, API error codes, the relay's exit. Never a token. */
    readonly detail: string,
    /** `refused`: the API's Retry-After, in seconds, when it gave one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(SENTENCES[failure]);
    this.name = "VercelSandboxError";
  }
}

/** The API error's status and code, for a log line (its message may quote a request). */
function apiDetail(error: APIError<unknown>): { status: number; code: string } {
  const body = error.json as { error?: { code?: unknown } } | undefined;
  return { status: error.response.status, code: typeof body?.error?.code === "string" ? body.error.code : "unknown" };
}

/** A Retry-After longer than this is taken as this: a person will not wait longer anyway. */
const MAX_RETRY_AFTER_SECONDS = 3600;

/** The answer's Retry-After in whole seconds, when it gave a positive number of them (not a date). */
function retryAfterOf(response: Response): number | undefined {
  const value = response.headers.get("retry-after")?.trim() ?? "";
  if (!/^\d{1,9}$/.test(value) || Number(value) === 0) return undefined;
  return Math.min(Number(value), MAX_RETRY_AFTER_SECONDS);
}

/** What a failed Sandbox API call means, as a VercelSandboxError (kept as it is when it already is one). */
export function sandboxApiFailure(error: unknown, what: string): VercelSandboxError {
  if (error instanceof VercelSandboxError) return error;
  if (error instanceof APIError) {
    const { status, code } = apiDetail(error);
    const detail = `${what}: the Sandbox API answered ${status} ${code}`;
    if (status === 429) return new VercelSandboxError("refused", detail, retryAfterOf(error.response));
    if (status === 401 || status === 403) return new VercelSandboxError("credentials", detail);
    if (code === "snapshot_not_found") return new VercelSandboxError("snapshot_missing", detail);
    return new VercelSandboxError("unavailable", detail);
  }
  const name = error instanceof Error ? error.name : typeof error;
  return new VercelSandboxError("unavailable", `${what}: ${name}`);
}
