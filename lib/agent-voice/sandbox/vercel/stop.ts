import "server-only";
/**
 * Ending agent-voice sandboxes: one by its handle, and the start-up sweep of those nobody owns.
 * Both only read sandboxes and call `stop`, which never resumes one (no VM is booted to end it).
 */
import { Sandbox } from "@vercel/sandbox";
import { sandboxApiFailure, VercelSandboxError } from "./errors";
import type { VercelSandboxHandle } from "./handle";
import { APP_TAG } from "./layout";
import { readSandbox } from "./read-sandbox";
import type { VercelSandboxApi } from "./start";

/** Sandboxes in these states still have (or are getting) a VM: a stop ends it. */
const LIVE_STATUSES: readonly string[] = ["pending", "running"];

/** Stops the handle's sandbox (codex and the relay end with it). Done already when it has no VM. */
export async function stopVercelSandbox(api: VercelSandboxApi, handle: Pick<VercelSandboxHandle, "sandboxId">): Promise<void> {
  let sandbox: Sandbox;
  try {
    sandbox = await readSandbox(api, handle.sandboxId);
  } catch (error) {
    if (error instanceof VercelSandboxError && error.failure === "ended") return;
    throw error;
  }
  if (!LIVE_STATUSES.includes(sandbox.status)) return;
  try {
    await sandbox.stop();
  } catch (error) {
    throw sandboxApiFailure(error, "stop");
  }
}

interface SweepOptions {
  /** The one tag to list by (the API filters by one), e.g. `{ deploy: "dpl_…" }`. Default the app tag. */
  tag?: Record<string, string>;
  /** Sandboxes still in use (named in a live session's record): left running. */
  keep?(sandboxId: string): boolean | Promise<boolean>;
  /**
   * Sandboxes the API says were created at or after this time (epoch ms) are left running too: a
   * start may still be under way that has not yet marked its sandbox in use.
   */
  keepCreatedSince?: number;
}

/**
 * Stops every running (or starting) sandbox with the tag that also carries the app's tag, except
 * those `keep` names and those created since `keepCreatedSince`; resolves with the ids it stopped.
 */
export async function sweepOrphanedSandboxes(api: VercelSandboxApi, options: SweepOptions = {}): Promise<string[]> {
  const tag = options.tag ?? { [APP_TAG.key]: APP_TAG.value };
  if (Object.keys(tag).length !== 1) throw new Error("sweepOrphanedSandboxes lists by exactly one tag");
  const stopped: string[] = [];
  try {
    // The whole list first: stopping while paging could shift the pages.
    const listed = await (await Sandbox.list({ ...api, tags: tag })).toArray();
    for (const summary of listed) {
      if (!LIVE_STATUSES.includes(summary.status)) continue;
      if (summary.tags?.[APP_TAG.key] !== APP_TAG.value) continue;
      if (options.keepCreatedSince !== undefined && summary.createdAt >= options.keepCreatedSince) continue;
      if (await options.keep?.(summary.name)) continue;
      await stopVercelSandbox(api, { sandboxId: summary.name });
      stopped.push(summary.name);
    }
  } catch (error) {
    throw sandboxApiFailure(error, "sweep");
  }
  return stopped;
}
