import "server-only";
/**
 * All live sessions of one handler, and who may start one:
 *
 * - starts of one login run one after another; a start overtaken by a newer start of the same
 *   login (or by its logout) is refused as `superseded` without spawning, or closed if it already
 *   runs, so a login never holds more than one live process;
 * - before anything is spawned: at most `maxSessionsPerAccount` logins of one ChatGPT account and
 *   at most `maxSessions` logins on this server hold or start a live session (a login replacing
 *   its own session does not count against itself);
 * - sessions are looked up by id AND owner (another login's id is "not found"); closed sessions stay
 *   readable for a short while so a late subscriber still gets their last events.
 *
 * The processes themselves (spawn, spare, close, sweep) belong to codex-processes.ts.
 */
import { spawnAppServer, type AppServerProcess } from "./app-server-process";
import { CodexProcessesClosedError, createCodexProcesses, type CodexProcesses } from "./codex-processes";
import {
  DEFAULT_EVENT_BUFFER_SIZE,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_KEEPALIVE_INTERVAL_MS,
  DEFAULT_LOGIN_CHECK_INTERVAL_MS,
  DEFAULT_MAX_DURATION_MS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_ACCOUNT,
  DEFAULT_START_TIMEOUT_MS,
} from "./defaults";
import {
  DEFAULT_INSTRUCTIONS,
  startLiveSession,
  type LiveSession,
  type LiveSessionOwner,
  type LoginTokens,
  type StartRequest,
} from "./live-session";
import { resolveAgentSandbox, sandboxNetworkOptions, type AgentSandbox } from "./sandbox";
import { agentLimits } from "./sandbox/limits";
import { StartRefusedError } from "./start-refused";
import { LiveSessionStartError } from "./start-failure";
import { isSandboxUnavailable } from "./sandbox/unavailable";
import type { AgentVoiceOptions } from "./types";
import type { KeyValueStore } from "@/lib/stores/types";
import type { Logger } from "@/lib/logger";
import { onePerProcess } from "@/lib/one-per-process";

export const MAX_EVENT_STREAMS = 4;
/** How long a closed session's events can still be read. */
export const CLOSED_SESSION_RETENTION_MS = 60_000;
/** `retry-after` of a busy answer: live sessions last minutes, so a little patience. */
export const BUSY_RETRY_AFTER_SECONDS = 30;
const SHUTDOWN_RETRY_AFTER_SECONDS = 5;

export interface LiveSessions {
  start(owner: LiveSessionOwner, tokens: LoginTokens, request: StartRequest): Promise<LiveSession>;
  /** The session with this id if `loginId` owns it; otherwise null. */
  get(id: string, loginId: string): LiveSession | null;
  /** Ends the login's live session, and any start of it still on its way. */
  closeForLogin(loginId: string, reason: string): Promise<void>;
  /** Shutdown: ends every live session and every process; later starts are refused. */
  close(): Promise<void>;
  keepaliveIntervalMs: number;
}

type LiveSessionsDeps = { store: KeyValueStore; logger: Logger; now: () => number; sandbox?: AgentSandbox; spawn?: () => Promise<AppServerProcess> };

/** The owner of this handler's codex processes: one per server process and spawn settings, unless a test injects the spawn. */
function codexProcessesFor(options: AgentVoiceOptions, deps: LiveSessionsDeps, startTimeoutMs: number): CodexProcesses {
  const sandbox =
    deps.sandbox ??
    resolveAgentSandbox(options.sandbox, options.sandboxReadOnlyPaths, sandboxNetworkOptions(options.sandboxAllowHosts ?? [], deps.logger), {
      ...(options.vercelSandbox ? { settings: options.vercelSandbox } : {}),
      logger: deps.logger,
    });
  // A spare only where an idle one costs little (a local process, not a billed VM).
  const keepWarm = options.keepWarmProcess ?? sandbox.warmSpare;
  const limits = agentLimits(options.limits);
  const makeProcesses = (): CodexProcesses =>
    createCodexProcesses({
      spawn:
        deps.spawn ??
        (() =>
          spawnAppServer({
            command: options.command,
            ...(options.configToml ? { configToml: options.configToml } : {}),
            sandbox,
            limits,
          })),
      initTimeoutMs: startTimeoutMs,
      keepWarm,
      logger: deps.logger,
    });
  if (deps.spawn) return makeProcesses();
  // `next dev` makes a new handler on each save of a server file: the processes (and the warm spare)
  // stay one pool per process and spawn settings, instead of one more pool per save.
  const spawnSettings = JSON.stringify([options.command, options.configToml, sandbox.name, options.sandboxReadOnlyPaths, options.sandboxAllowHosts, options.vercelSandbox, startTimeoutMs, keepWarm, limits]);
  return onePerProcess("codex-processes", spawnSettings, makeProcesses, (old) => void old.closeAll());
}

/** What each live session of this handler runs with: the options, or their defaults. */
function liveSessionSettings(options: AgentVoiceOptions & { loginCheckIntervalMs?: number }, deps: LiveSessionsDeps, startTimeoutMs: number) {
  return {
    tools: options.tools ?? [],
    instructions: options.instructions ?? DEFAULT_INSTRUCTIONS,
    startTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    maxDurationMs: options.maxDurationMs ?? DEFAULT_MAX_DURATION_MS,
    loginCheckIntervalMs: options.loginCheckIntervalMs ?? DEFAULT_LOGIN_CHECK_INTERVAL_MS,
    eventBufferSize: options.eventBufferSize ?? DEFAULT_EVENT_BUFFER_SIZE,
    maxEventStreams: MAX_EVENT_STREAMS,
    limits: agentLimits(options.limits),
    store: deps.store,
    logger: deps.logger,
    now: deps.now,
  };
}

export function createLiveSessions(
  options: AgentVoiceOptions & { loginCheckIntervalMs?: number },
  deps: LiveSessionsDeps,
): LiveSessions {
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxSessionsPerAccount = options.maxSessionsPerAccount ?? DEFAULT_MAX_SESSIONS_PER_ACCOUNT;
  const processes = codexProcessesFor(options, deps, startTimeoutMs);
  const settings = liveSessionSettings(options, deps, startTimeoutMs);
  const byId = new Map<string, LiveSession>();
  const currentByLogin = new Map<string, LiveSession>();
  /** Logins with a start under way, and their account. */
  const startingByLogin = new Map<string, string>();
  /** Bumped by each start and each closeForLogin: a start compares it with its own number. */
  const latestStart = new Map<string, number>();
  const queueByLogin = new Map<string, Promise<void>>();
  let closed = false;

  function forget(session: LiveSession): void {
    if (currentByLogin.get(session.ownerLoginId) === session) currentByLogin.delete(session.ownerLoginId);
    const timer = setTimeout(() => byId.delete(session.id), CLOSED_SESSION_RETENTION_MS);
    timer.unref();
  }

  /** Runs the login's starts one after another. */
  function inTurn<T>(loginId: string, task: () => Promise<T>): Promise<T> {
    const turn = (queueByLogin.get(loginId) ?? Promise.resolve()).then(task);
    const settled = turn.then(
      () => undefined,
      () => undefined,
    );
    queueByLogin.set(loginId, settled);
    void settled.then(() => {
      if (queueByLogin.get(loginId) === settled) queueByLogin.delete(loginId);
    });
    return turn;
  }

  const superseded = () => new StartRefusedError("superseded", "A newer start of this sign-in replaced this one.");
  const shuttingDown = () =>
    new StartRefusedError("shutting_down", "The server is shutting down. Try again shortly.", SHUTDOWN_RETRY_AFTER_SECONDS);

  /** The caps, checked before anything is spawned. The login's own session is about to be replaced: not counted. */
  function admit(owner: LiveSessionOwner): void {
    if (closed) throw shuttingDown();
    const holders = new Map<string, string>();
    for (const [loginId, session] of currentByLogin) holders.set(loginId, session.ownerAccountId);
    for (const [loginId, accountId] of startingByLogin) holders.set(loginId, accountId);
    holders.delete(owner.loginId);
    const sameAccount = [...holders.values()].filter((accountId) => accountId === owner.account.accountId).length;
    if (sameAccount >= maxSessionsPerAccount) {
      throw new StartRefusedError(
        "account_busy",
        `This ChatGPT account already has ${maxSessionsPerAccount} live agent voice sessions. End one, or try again later.`,
        BUSY_RETRY_AFTER_SECONDS,
      );
    }
    if (holders.size >= maxSessions) {
      throw new StartRefusedError("server_busy", "Agent voice is busy on this server. Try again in a little while.", BUSY_RETRY_AFTER_SECONDS);
    }
  }

  async function take(): Promise<AppServerProcess> {
    try {
      return await processes.take();
    } catch (error) {
      if (error instanceof CodexProcessesClosedError) throw shuttingDown();
      // The sandbox would show what it must hide: the route answers 503 and logs the fix.
      if (isSandboxUnavailable(error)) throw error;
      const reason = error instanceof Error ? error.message.slice(0, 300) : "unknown error";
      throw new LiveSessionStartError("not_started", `the codex executable did not start: ${reason}`);
    }
  }

  async function startInTurn(mine: number, owner: LiveSessionOwner, tokens: LoginTokens, request: StartRequest): Promise<LiveSession> {
    const { loginId } = owner;
    const overtaken = () => latestStart.get(loginId) !== mine;
    if (overtaken()) throw superseded();
    admit(owner);
    startingByLogin.set(loginId, owner.account.accountId);
    try {
      await currentByLogin.get(loginId)?.close("replaced");
      const appServer = await take();
      if (overtaken() || closed) {
        await appServer.close();
        throw closed ? shuttingDown() : superseded();
      }
      const session = await startLiveSession(appServer, owner, tokens, request, settings);
      void session.closed.then(() => forget(session));
      byId.set(session.id, session);
      if (overtaken() || closed) {
        await session.close(closed ? "shutdown" : "replaced");
        throw closed ? shuttingDown() : superseded();
      }
      currentByLogin.set(loginId, session);
      return session;
    } finally {
      startingByLogin.delete(loginId);
    }
  }

  return {
    keepaliveIntervalMs: options.keepaliveIntervalMs ?? DEFAULT_KEEPALIVE_INTERVAL_MS,
    start(owner, tokens, request) {
      const mine = (latestStart.get(owner.loginId) ?? 0) + 1;
      latestStart.set(owner.loginId, mine);
      return inTurn(owner.loginId, () => startInTurn(mine, owner, tokens, request));
    },
    get(id, loginId) {
      const session = byId.get(id);
      return session && session.ownerLoginId === loginId ? session : null;
    },
    async closeForLogin(loginId, reason) {
      latestStart.set(loginId, (latestStart.get(loginId) ?? 0) + 1);
      await currentByLogin.get(loginId)?.close(reason);
    },
    async close() {
      closed = true;
      await Promise.all([...byId.values()].map((session) => session.close("shutdown")));
      await processes.closeAll();
    },
  };
}
