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
  BUSY_RETRY_AFTER_SECONDS,
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
  resumeLiveSession,
  startLiveSession,
  type LiveSession,
  type LiveSessionOwner,
  type LoginTokens,
  type StartRequest,
} from "./live-session";
import { resolveAgentSandbox, sandboxNetworkOptions, type AgentSandbox } from "./sandbox";
import { agentLimits } from "./sandbox/limits";
import { isStartRefused, StartRefusedError } from "./start-refused";
import { LiveSessionStartError } from "./start-failure";
import { isSandboxUnavailable } from "./sandbox/unavailable";
import type { AgentVoiceOptions, ConfirmTool } from "./types";
import { randomBytes } from "node:crypto";
import { CLAIM_TTL_MS, createHolders } from "./cluster/holders";
import { createHosting } from "./cluster/hosting";
import { readRecord, type SessionRecord } from "./cluster/records";
import { takeOver } from "./cluster/take-over";
import { remoteSession, type ServedSession } from "./cluster/remote-session";
import type { SealedStore, ValueSealer } from "./cluster/sealed-store";
import type { KeyValueStore } from "@/lib/stores/types";
import type { Logger } from "@/lib/logger";
import { onePerProcess } from "@/lib/one-per-process";

export const MAX_EVENT_STREAMS = 4;
/** How long a closed session's events can still be read. */
export const CLOSED_SESSION_RETENTION_MS = 60_000;
const SHUTDOWN_RETRY_AFTER_SECONDS = 5;

export interface LiveSessions {
  start(owner: LiveSessionOwner, tokens: LoginTokens, request: StartRequest): Promise<LiveSession>;
  /**
   * The session with this id if `loginId` owns it, on this instance or another; otherwise null. One
   * that another instance handed off (its VM going on) is taken over here for `owner`; with
   * `bringHere` (the event stream's request) one another instance hosts is asked over, where its
   * sandbox can move: the instance that serves the browser's stream hosts the call.
   */
  get(id: string, loginId: string, owner?: LiveSessionOwner, bringHere?: boolean): Promise<ServedSession | null>;
  /** Hands the session hosted here off (where its sandbox can move), for the browser's next request to take over. */
  release(id: string): Promise<boolean>;
  /** Ends the login's live session, and any start of it still on its way. */
  closeForLogin(loginId: string, reason: string): Promise<void>;
  /** Shutdown: ends every live session and every process; later starts are refused. */
  close(): Promise<void>;
  keepaliveIntervalMs: number;
}

type LiveSessionsDeps = {
  store: KeyValueStore;
  /** Seals what this instance writes for the others (LWC_SECRET). */
  sealer: ValueSealer;
  /** The confirmation step's handler, for confirmations another instance passes on. */
  confirmTool?: ConfirmTool;
  logger: Logger;
  now: () => number;
  sandbox?: AgentSandbox;
  spawn?: () => Promise<AppServerProcess>;
};

function sandboxFor(options: AgentVoiceOptions, deps: LiveSessionsDeps): AgentSandbox {
  return (
    deps.sandbox ??
    resolveAgentSandbox(options.sandbox, options.sandboxReadOnlyPaths, sandboxNetworkOptions(options.sandboxAllowHosts ?? [], deps.logger), {
      ...(options.vercelSandbox ? { settings: options.vercelSandbox } : {}),
      logger: deps.logger,
    })
  );
}

/** The owner of this handler's codex processes: one per server process and spawn settings, unless a test injects the spawn. */
function codexProcessesFor(options: AgentVoiceOptions, deps: LiveSessionsDeps, sandbox: AgentSandbox, startTimeoutMs: number): CodexProcesses {
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

const superseded = () => new StartRefusedError("superseded", "A newer start of this sign-in replaced this one.");
const shuttingDown = () => new StartRefusedError("shutting_down", "The server is shutting down. Try again shortly.", SHUTDOWN_RETRY_AFTER_SECONDS);

/** Runs the tasks of each login one after another (a login's starts). */
function oneAfterAnother() {
  const queueByLogin = new Map<string, Promise<void>>();
  return function inTurn<T>(loginId: string, task: () => Promise<T>): Promise<T> {
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
  };
}

/** A started codex for a live session, or why not as the routes know it. */
async function takeProcess(processes: CodexProcesses, shuttingDown: () => StartRefusedError): Promise<AppServerProcess> {
  try {
    return await processes.take();
  } catch (error) {
    if (error instanceof CodexProcessesClosedError) throw shuttingDown();
    // The platform refused another sandbox now (the backend logged why): the server's capacity, 503 realtime_busy.
    if (isStartRefused(error)) throw error;
    // The sandbox would show what it must hide: the route answers 503 and logs the fix.
    if (isSandboxUnavailable(error)) throw error;
    const reason = error instanceof Error ? error.message.slice(0, 300) : "unknown error";
    throw new LiveSessionStartError("not_started", `the codex executable did not start: ${reason}`);
  }
}

/** The cap a start ran into, as the route's `realtime_busy` answer. */
function busy(verdict: string, maxSessionsPerAccount: number): StartRefusedError {
  if (verdict === "account_busy") {
    return new StartRefusedError(
      "account_busy",
      `This ChatGPT account already has ${maxSessionsPerAccount} live agent voice sessions. End one, or try again later.`,
      BUSY_RETRY_AFTER_SECONDS,
    );
  }
  return new StartRefusedError("server_busy", "Agent voice is busy on this server. Try again in a little while.", BUSY_RETRY_AFTER_SECONDS);
}

export function createLiveSessions(
  options: AgentVoiceOptions & { loginCheckIntervalMs?: number },
  deps: LiveSessionsDeps,
): LiveSessions {
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const caps = { maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS, maxSessionsPerAccount: options.maxSessionsPerAccount ?? DEFAULT_MAX_SESSIONS_PER_ACCOUNT };
  const sandbox = sandboxFor(options, deps);
  const processes = codexProcessesFor(options, deps, sandbox, startTimeoutMs);
  const settings = liveSessionSettings(options, deps, startTimeoutMs);
  // What other instances sharing the store see of this one's live sessions (lib/agent-voice/cluster/).
  const shared: SealedStore = { store: deps.store, sealer: deps.sealer };
  const instance = randomBytes(9).toString("base64url");
  const holders = createHolders(shared, deps.now);
  // A call can move between instances where its sandbox can (a VM) and another instance can see it (a shared store).
  const canHandOff = deps.store.kind !== "memory" && sandbox.reopen !== undefined;
  const hosting = createHosting({
    shared,
    instance,
    holders,
    sandbox,
    confirmTool: deps.confirmTool,
    logger: deps.logger,
    eventBufferSize: settings.eventBufferSize,
    maxDurationMs: settings.maxDurationMs,
    closedRetentionMs: CLOSED_SESSION_RETENTION_MS,
  });
  const byId = new Map<string, LiveSession>();
  const currentByLogin = new Map<string, LiveSession>();
  /** Bumped by each start and each closeForLogin: a start compares it with its own number. */
  const latestStart = new Map<string, number>();
  const inTurn = oneAfterAnother();
  let closed = false;

  function forget(session: LiveSession): void {
    if (currentByLogin.get(session.ownerLoginId) === session) currentByLogin.delete(session.ownerLoginId);
    // Only this object: a session handed off and taken over again here is another object under the same id.
    const timer = setTimeout(() => byId.get(session.id) === session && byId.delete(session.id), CLOSED_SESSION_RETENTION_MS);
    timer.unref();
  }

  /**
   * The caps, checked before anything is spawned, across every instance sharing the store: a claim
   * for the login (the login's own session is about to be replaced: not counted). Returns the claim.
   */
  async function admit(owner: LiveSessionOwner): Promise<string> {
    if (closed) throw shuttingDown();
    const { verdict, claim } = await holders.claim(owner.loginId, owner.account.accountId, caps, startTimeoutMs + CLAIM_TTL_MS);
    if (claim === undefined) throw busy(verdict, caps.maxSessionsPerAccount);
    return claim;
  }

  const take = () => takeProcess(processes, shuttingDown);

  /** Ends the login's live session on whichever instance hosts it; resolves once the host says it ended (or did not answer). */
  async function closeEverywhere(loginId: string, reason: string): Promise<void> {
    await currentByLogin.get(loginId)?.close(reason);
    await hosting.closeElsewhere(loginId, reason);
  }

  /** Keeps `started` here and publishes it; `overtaken`: a newer start (or shutdown) came meanwhile, so it is closed instead. */
  async function host(started: LiveSession, claim: string, overtaken = () => closed): Promise<LiveSession> {
    const { session, publish } = hosting.keep(started, claim);
    void session.closed.then(() => forget(session));
    byId.set(session.id, session);
    if (overtaken()) {
      await session.close(closed ? "shutdown" : "replaced");
      throw closed ? shuttingDown() : superseded();
    }
    currentByLogin.set(session.ownerLoginId, session);
    await publish();
    return session;
  }

  /** Goes on here with a session another instance handed off; another instance's doing so is served as remote. */
  async function takeOverFor(record: SessionRecord, owner: LiveSessionOwner): Promise<ServedSession | null> {
    // Shutting down here: the stream ends at once (the record says handed off) and the browser's next one goes elsewhere.
    if (closed) return remoteSession(shared, record, deps.now);
    if (!sandbox.reopen) return null;
    const taken = await takeOver(shared, sandbox, holders, instance, record.id);
    if (taken.kind === "busy") return remoteSession(shared, record, deps.now);
    if (taken.kind === "ended") return null;
    try {
      const claim = taken.record.claim ?? "taken-over";
      await holders.restore(record.loginId, record.accountId, claim);
      const resumed = resumeLiveSession(taken.appServer, owner, taken.record.handoff!, taken.kept, settings);
      return await host(resumed, claim);
    } finally {
      await taken.release();
    }
  }

  async function startInTurn(mine: number, owner: LiveSessionOwner, tokens: LoginTokens, request: StartRequest): Promise<LiveSession> {
    const { loginId } = owner;
    const overtaken = () => latestStart.get(loginId) !== mine;
    if (overtaken()) throw superseded();
    const claim = await admit(owner);
    try {
      await closeEverywhere(loginId, "replaced");
      const appServer = await take();
      if (overtaken() || closed) {
        await appServer.close();
        throw closed ? shuttingDown() : superseded();
      }
      const started = await startLiveSession(appServer, owner, tokens, request, settings);
      return await host(started, claim, () => overtaken() || closed);
    } catch (error) {
      await holders.release(loginId, claim).catch(() => undefined);
      throw error;
    }
  }

  return {
    keepaliveIntervalMs: options.keepaliveIntervalMs ?? DEFAULT_KEEPALIVE_INTERVAL_MS,
    start(owner, tokens, request) {
      const mine = (latestStart.get(owner.loginId) ?? 0) + 1;
      latestStart.set(owner.loginId, mine);
      return inTurn(owner.loginId, () => startInTurn(mine, owner, tokens, request));
    },
    async get(id, loginId, owner, bringHere = false) {
      const session = byId.get(id);
      if (session && !session.wasHandedOff()) return session.ownerLoginId === loginId ? session : null;
      let record = await readRecord(shared, id);
      if (!record || record.loginId !== loginId) return null;
      const hostedElsewhere = record.host !== instance && record.host !== "" && record.closed === undefined;
      if (bringHere && owner && canHandOff && !closed && hostedElsewhere && (await hosting.pull(id))) record = (await readRecord(shared, id)) ?? record;
      if (record.host === "" && record.closed === undefined && owner) return takeOverFor(record, owner);
      // Hosted elsewhere, ended, or being handed off from here: served through the store.
      return record.host !== instance || record.closed !== undefined || session ? remoteSession(shared, record, deps.now) : null;
    },
    release: (id) => (canHandOff && !closed ? hosting.handOff(id) : Promise.resolve(false)),
    async closeForLogin(loginId, reason) {
      latestStart.set(loginId, (latestStart.get(loginId) ?? 0) + 1);
      await closeEverywhere(loginId, reason);
    },
    async close() {
      closed = true;
      // A call whose codex can outlive this instance (a VM) is handed off for another to take over,
      // where another can: with the in-memory store none ever will, so it ends (and its VM with it).
      await Promise.all(
        [...byId.values()].map(async (session) => {
          if (canHandOff && !session.isClosed() && (await hosting.handOff(session.id))) return;
          await session.close("shutdown");
        }),
      );
      await processes.closeAll();
    },
  };
}
