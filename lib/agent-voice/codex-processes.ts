import "server-only";
/**
 * The one owner of every `codex app-server` process's life, in the order a process lives it:
 *
 * 1. spawn      — `options.spawn` (app-server-process.ts by default; a test passes a fake);
 * 2. initialise — `initialize` + `initialized`, at most `maxStarting` processes at once; then its
 *                 limits (memory, processes, CPU time) are applied, before anyone's words reach it;
 * 3. spare      — with `keepWarm`, at most one initialised, never signed-in process waits;
 * 4. hand out   — `take()` gives the spare (or a new process) to exactly one live session;
 * 5. supervise  — every process is watched until it exits; a live one is closed at its limits;
 * 6. close      — `closeAll()` ends every process this owner made, handed out or not;
 * 7. sweep      — folders left by a server that was killed outright are removed at creation, and
 *                 when this server exits every process it still has is ended at once.
 *
 * Nothing is ever dropped: a process that fails to start is closed, and its error is thrown to
 * the caller (a start) or logged (the spare).
 */
import type { AppServerProcess } from "./app-server-process";
import { sweepLeftoverFolders } from "./sandbox/local-process";
import type { Logger } from "@/lib/logger";
import { LOG_PREFIX } from "@/lib/logger";

const CLIENT_INFO = { name: "login_with_chatgpt", title: "Sign in with ChatGPT", version: "0.1.0" };
const DEFAULT_MAX_STARTING = 2;

export interface CodexProcessesOptions {
  /** Starts one process (not yet initialised). */
  spawn(): Promise<AppServerProcess>;
  initTimeoutMs: number;
  /** Keep one initialised spare after the first take. */
  keepWarm: boolean;
  /** Processes spawning or initialising at the same time; more wait their turn. Default 2. */
  maxStarting?: number;
  logger: Logger;
}

export interface CodexProcesses {
  /** An initialised, never signed-in process, now the caller's: it must `close()` it. */
  take(): Promise<AppServerProcess>;
  /** Ends every process made here (the spare, the handed-out ones, any still starting); later takes fail. */
  closeAll(): Promise<void>;
  /** Processes made here that have not exited yet. */
  running(): number;
}

/** Thrown by `take()` once `closeAll()` ran (the server is shutting down). */
export class CodexProcessesClosedError extends Error {
  constructor() {
    super("agent voice is shutting down");
    this.name = "CodexProcessesClosedError";
  }
}

export function createCodexProcesses(options: CodexProcessesOptions): CodexProcesses {
  const { logger } = options;
  const mine = new Set<AppServerProcess>();
  const gate = createGate(options.maxStarting ?? DEFAULT_MAX_STARTING);
  let spare: AppServerProcess | undefined;
  let spareInFlight: Promise<void> | undefined;
  let closed = false;

  void sweepLeftoverFolders();

  // 1-2. Spawn and initialise one process, inside the gate. A failure closes it before throwing;
  // once closeAll() ran, nothing new is spawned and whatever was on its way is closed.
  const starting = new Set<Promise<AppServerProcess>>();
  function startOne(): Promise<AppServerProcess> {
    const attempt = gate.run(async () => {
      if (closed) throw new CodexProcessesClosedError();
      const spawned = await options.spawn();
      supervise(spawned);
      try {
        if (closed) throw new CodexProcessesClosedError();
        await spawned.rpc.request("initialize", { clientInfo: CLIENT_INFO, capabilities: { experimentalApi: true } }, options.initTimeoutMs);
        spawned.rpc.notify("initialized");
        // The launcher has become the native codex by now (it execs it): limit what runs.
        await spawned.applyLimits();
        return spawned;
      } catch (error) {
        await spawned.close();
        throw closed ? new CodexProcessesClosedError() : error;
      }
    });
    starting.add(attempt);
    const done = () => void starting.delete(attempt);
    attempt.then(done, done);
    return attempt;
  }

  // 3. The spare: made only when there is none and none is on its way.
  function refill(): void {
    if (!options.keepWarm || closed || spare || spareInFlight) return;
    spareInFlight = startOne()
      .then(
        (made) => {
          spare = made;
        },
        (error: unknown) => {
          if (error instanceof CodexProcessesClosedError) return;
          logger.warn(`${LOG_PREFIX} agent voice: the spare codex process did not start: ${describe(error)}`);
        },
      )
      .finally(() => {
        spareInFlight = undefined;
      });
  }

  // 4. Hand out: the spare when it is ready (or about to be), else a new one; then refill.
  async function take(): Promise<AppServerProcess> {
    if (closed) throw new CodexProcessesClosedError();
    if (!spare && spareInFlight) await spareInFlight;
    const ready = spare;
    spare = undefined;
    const handedOut = ready && !ready.hasExited() ? ready : await startOne();
    if (closed) {
      await handedOut.close();
      throw new CodexProcessesClosedError();
    }
    refill();
    return handedOut;
  }

  // 5. Supervise: a process that exits, however, leaves the books (its folder goes with it).
  function supervise(appServer: AppServerProcess): void {
    mine.add(appServer);
    running.add(appServer);
    installExitHook();
    void appServer.exited.then(() => {
      mine.delete(appServer);
      running.delete(appServer);
      if (spare === appServer) spare = undefined;
    });
  }

  // 6. Close everything made here: what runs (which fails any start on its way), then what those
  // starts had spawned meanwhile.
  async function closeAll(): Promise<void> {
    closed = true;
    spare = undefined;
    await Promise.all([...mine].map((appServer) => appServer.close()));
    await Promise.allSettled([...starting]);
    await Promise.all([...mine].map((appServer) => appServer.close()));
  }

  return { take, closeAll, running: () => mine.size };
}

/** Limits of a live process's life; `close` is called once with the reason a limit was reached. */
interface LiveLimits {
  idleTimeoutMs: number;
  maxDurationMs: number;
  loginCheckIntervalMs: number;
  now(): number;
  /** When the live session last saw activity (epoch ms). */
  lastActivity(): number;
  /** False once its login is signed out or expired. */
  isSignedIn(): Promise<boolean>;
  close(reason: "idle_timeout" | "max_duration" | "login_expired"): void;
  /** When the live session started (a session taken over from another instance started there). Default now. */
  startedAt?: number;
}

/** 5. Supervise a handed-out process while it serves a live session. Returns the stop function. */
export function superviseLive(limits: LiveLimits): () => void {
  const startedAt = limits.startedAt ?? limits.now();
  const timers = [
    setInterval(() => {
      if (limits.now() - limits.lastActivity() >= limits.idleTimeoutMs) limits.close("idle_timeout");
      else if (limits.now() - startedAt >= limits.maxDurationMs) limits.close("max_duration");
    }, Math.min(1_000, limits.idleTimeoutMs, limits.maxDurationMs)),
    setInterval(() => {
      limits.isSignedIn().then(
        (signedIn) => {
          if (!signedIn) limits.close("login_expired");
        },
        () => undefined, // The store is briefly unreachable: check again next time.
      );
    }, limits.loginCheckIntervalMs),
  ];
  for (const timer of timers) timer.unref();
  return () => timers.forEach(clearInterval);
}

/** At most `size` tasks at once; the others wait in order. */
function createGate(size: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active >= size) await new Promise<void>((resolve) => waiting.push(resolve));
      else active += 1;
      try {
        return await task();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else active -= 1;
      }
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.replace(/\s+/g, " ").slice(0, 200) : "unknown error";
}

// 7. Sweep. Every process of this server, across all owners, for the last moment below.
const running = new Set<AppServerProcess>();
let exitHookInstalled = false;

/**
 * When this server exits (also after the framework's SIGTERM/SIGINT handling), end what is left at
 * once: an exit handler cannot wait. (A SIGKILL of the server cannot run this: local processes then
 * exit when their stdin closes, the next server's sweep removes their folders, and a VM ends at
 * its lifetime.)
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const appServer of running.values()) appServer.killNow();
  });
}
