import "server-only";
/**
 * The start-up sweep: once, when a server's Vercel backend is made, stop the app's sandboxes no live
 * session uses (a killed server's, which would otherwise run until their lifetime ends). Several
 * instances share the sandboxes, so it leaves running every sandbox a live session marked in use in
 * the shared store, and every one young enough to be a start still under way.
 */
import { LOG_PREFIX, type Logger } from "@/lib/logger";
import type { KeyValueStore } from "@/lib/stores/types";
import { sandboxInUseKey } from "../../cluster/keys";
import { VercelSandboxError } from "./errors";
import { DEFAULT_RELAY_START_TIMEOUT_MS, type VercelSandboxApi } from "./start";
import { sweepOrphanedSandboxes } from "./stop";

export interface StartUpSweepContext {
  /** The handler's store: a live session on any instance holds `sandboxInUseKey(sandboxId)` there while it uses its VM. */
  store: KeyValueStore;
  /** Agent voice's start timeout (`startTimeoutMs`). */
  startTimeoutMs: number;
}

/** Time for the create itself and for the platform's clock against ours. */
const CREATE_AND_CLOCKS_MS = 60_000;

/**
 * How long after its create a sandbox may still be a start under way that has not marked it in use:
 * the relay's start, then codex's initialize and the live session's start (each within the start
 * timeout), and a minute for the create and the clocks. 160 s with the defaults.
 */
function startingWindowMs(startTimeoutMs: number): number {
  return CREATE_AND_CLOCKS_MS + DEFAULT_RELAY_START_TIMEOUT_MS + 2 * startTimeoutMs;
}

/** Runs the sweep; never throws: the outcome is one log line (the count, or why it failed; never a token). */
export async function sweepAtStartUp(api: VercelSandboxApi, context: StartUpSweepContext, logger: Logger | undefined): Promise<void> {
  try {
    const stopped = await sweepOrphanedSandboxes(api, {
      keep: async (sandboxId) => (await context.store.get(sandboxInUseKey(sandboxId))) !== null,
      keepCreatedSince: Date.now() - startingWindowMs(context.startTimeoutMs),
    });
    logger?.info(`${LOG_PREFIX} agent voice: the start-up sweep stopped ${stopped.length} Vercel sandbox${stopped.length === 1 ? "" : "es"} no live session uses`);
  } catch (error) {
    const detail = error instanceof VercelSandboxError ? error.detail : "error";
    logger?.warn(
      `${LOG_PREFIX} agent voice: the start-up sweep of Vercel sandboxes failed (${detail}); ` +
        "a sandbox it did not stop ends at its lifetime (LWC_VERCEL_SANDBOX_TIMEOUT_SECONDS)",
    );
  }
}
