import "server-only";
/**
 * What runs when the server is asked to stop (SIGTERM, SIGINT): every registered close, such as the
 * handler's (which ends agent voice's codex processes and removes their folders). Node only.
 *
 * The list lives on globalThis because Next.js loads instrumentation.ts (which installs the signal
 * hooks) and the routes (which register the handler) as separate module instances of one process.
 * Next.js itself also handles both signals: it stops accepting connections, waits for open requests
 * and exits. Closing agent voice ends its event streams, so that wait ends too. Next.js's exit waits
 * for the closes (at most SHUTDOWN_GRACE_MS): a close that writes to the shared store, such as the
 * hand-off of a call on a Vercel sandbox, must finish before the process goes. Past that, the exit
 * hook of codex-processes.ts kills what is left and removes the folders.
 */
import { LOG_PREFIX } from "@/lib/logger";

type Close = () => Promise<void>;
const REGISTRY = Symbol.for("login-with-chatgpt.shutdown");
const SIGNALS = ["SIGTERM", "SIGINT"] as const;
/** How long an exit asked for during shutdown waits for the closes. */
const SHUTDOWN_GRACE_MS = 5_000;

interface Registry {
  closes: Set<Close>;
  installed: boolean;
}

function registry(): Registry {
  const global = globalThis as { [REGISTRY]?: Registry };
  global[REGISTRY] ??= { closes: new Set(), installed: false };
  return global[REGISTRY];
}

/** Registers a close to run on SIGTERM/SIGINT (once the hooks are installed). */
export function closeOnShutdown(close: Close): void {
  registry().closes.add(close);
}

/** Runs every registered close (each once, all at the same time). */
export async function runShutdown(): Promise<void> {
  const closes = [...registry().closes];
  registry().closes.clear();
  const results = await Promise.allSettled(closes.map((close) => close()));
  for (const result of results) {
    if (result.status === "rejected") console.error(`${LOG_PREFIX} a close on shutdown failed: ${nameOf(result.reason)}`);
  }
}

/**
 * Installs the SIGTERM/SIGINT hooks (once per process). When nothing else handles the signal (no
 * Next.js, or NEXT_MANUAL_SIG_HANDLE), the process exits after the closes, as the signal would
 * have made it.
 */
export function installShutdownHooks(): void {
  const state = registry();
  if (state.installed) return;
  state.installed = true;
  for (const signal of SIGNALS) {
    process.once(signal, () => {
      const alone = process.listenerCount(signal) === 0;
      const done = runShutdown();
      holdExitUntil(done);
      void done.finally(() => {
        if (alone) process.exit(signal === "SIGTERM" ? 143 : 130);
      });
    });
  }
}

/**
 * Next.js calls process.exit once its own cleanup is done, which can come before ours (it has no
 * hook to wait for): from now on an exit waits for `done`, or SHUTDOWN_GRACE_MS, whichever is first.
 */
function holdExitUntil(done: Promise<void>): void {
  const exit = process.exit.bind(process);
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)));
  const settled = Promise.race([done.catch(() => undefined), grace]).finally(() => clearTimeout(timer));
  process.exit = ((code?: number | string | null) => {
    void settled.then(() => exit(code));
  }) as typeof process.exit;
}

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
