import "server-only";
/**
 * reopenVercelSandbox(api, handle, token, options): a channel to a running agent-voice sandbox
 * from any server instance, with no new VM.
 *
 * The SDK quietly boots a new VM for a stopped sandbox in `Sandbox.get({resume: true})` and in
 * every method that retries through its resume path (runCommand, writeFiles, extendTimeout, …).
 * So this only reads the sandbox (`resume: false`) and checks that it runs; the channel then goes
 * to the relay url stored in the handle (routes do not change while a sandbox runs). A relay
 * that answers with another epoch ends the channel (`relay_restarted`).
 */
import { openRelayChannel, type RelayChannel, type RelayLine } from "../../relay/relay-client";
import { VercelSandboxError } from "./errors";
import { parseVercelSandboxHandle, type VercelSandboxHandle } from "./handle";
import { readSandbox } from "./read-sandbox";
import type { ChannelTimeouts, VercelSandboxApi } from "./start";

interface ReopenOptions extends ChannelTimeouts {
  /** Follow from after this seq (the live session's consumed seq); 0: from the start. */
  after?: number;
  onLine?(line: RelayLine): void;
}

export async function reopenVercelSandbox(api: VercelSandboxApi, handle: VercelSandboxHandle, token: string, options: ReopenOptions = {}): Promise<RelayChannel> {
  const checked = parseVercelSandboxHandle(handle);
  const sandbox = await readSandbox(api, checked.sandboxId);
  if (sandbox.status !== "running") throw new VercelSandboxError("ended", `the sandbox is ${sandbox.status}`);
  const { after, onLine, ...timeouts } = options;
  return openRelayChannel({
    ...timeouts,
    address: { url: checked.relayUrl },
    token,
    epoch: checked.relayEpoch,
    ...(after === undefined ? {} : { after }),
    ...(onLine ? { onLine } : {}),
  });
}
