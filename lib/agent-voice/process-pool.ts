/**
 * Hands out initialised `codex app-server` processes. After the first start it keeps one spare
 * process ready (spawned and initialised, never signed in, no thread), so the next person's start
 * skips the slowest step. Every process still serves exactly one live session and is then closed.
 */
import { spawnAppServer, type AppServerProcess } from "./app-server-process";

export const CLIENT_INFO = { name: "login_with_chatgpt", title: "Sign in with ChatGPT", version: "0.1.0" };

async function initialise(appServer: AppServerProcess, timeoutMs: number): Promise<AppServerProcess> {
  try {
    await appServer.rpc.request("initialize", { clientInfo: CLIENT_INFO, capabilities: { experimentalApi: true } }, timeoutMs);
    appServer.rpc.notify("initialized");
    return appServer;
  } catch (error) {
    await appServer.close();
    throw error;
  }
}

export interface ProcessPool {
  /** A fresh initialised process (the spare one when ready, else a new one). */
  take(): Promise<AppServerProcess>;
  /** Closes the spare process. */
  close(): Promise<void>;
}

export function createProcessPool(options: {
  command: string;
  configToml?: string;
  initTimeoutMs: number;
  keepWarm: boolean;
}): ProcessPool {
  let spare: Promise<AppServerProcess | null> | null = null;
  let closed = false;

  const fresh = async () => initialise(await spawnAppServer(options), options.initTimeoutMs);

  function refill(): void {
    if (!options.keepWarm || closed) return;
    spare = fresh().catch(() => null);
  }

  return {
    async take() {
      const waiting = spare;
      spare = null;
      const ready = waiting ? await waiting : null;
      if (ready && !ready.hasExited()) {
        refill();
        return ready;
      }
      if (ready) await ready.close();
      // The spare is made after this one, so the two do not compete for the CPU.
      const made = await fresh();
      refill();
      return made;
    },
    async close() {
      closed = true;
      const waiting = spare;
      spare = null;
      const ready = waiting ? await waiting : null;
      await ready?.close();
    },
  };
}
