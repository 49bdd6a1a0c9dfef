import "server-only";
/**
 * One sandbox as the Sandbox API describes it, read without resuming it: `Sandbox.get` with
 * `resume: false`, so no VM is booted for a stopped sandbox. A sandbox the API no longer knows
 * (404) is VercelSandboxError "ended".
 */
import { APIError, Sandbox } from "@vercel/sandbox";
import { sandboxApiFailure, VercelSandboxError } from "./errors";
import type { VercelSandboxApi } from "./start";

export async function readSandbox(api: VercelSandboxApi, sandboxId: string): Promise<Sandbox> {
  try {
    return await Sandbox.get({ ...api, name: sandboxId, resume: false });
  } catch (error) {
    if (error instanceof APIError && error.response.status === 404) throw new VercelSandboxError("ended", "get: the Sandbox API answered 404");
    throw sandboxApiFailure(error, "get");
  }
}
