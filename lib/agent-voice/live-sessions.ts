/**
 * All live sessions of one handler: at most one per login (a new start closes the older one),
 * looked up by id AND owner (another login's id is "not found"). Closed sessions stay readable for
 * a short while so a late subscriber still gets their last events, including `session.closed`.
 */
import { createProcessPool } from "./process-pool";
import {
  DEFAULT_INSTRUCTIONS,
  LiveSessionStartError,
  startLiveSession,
  type LiveSession,
  type LiveSessionOwner,
  type LoginTokens,
  type StartRequest,
} from "./live-session";
import type { AppServerOptions } from "./types";
import type { KeyValueStore } from "@/lib/stores/types";
import type { Logger } from "@/lib/server/logger";

export const DEFAULT_START_TIMEOUT_MS = 20_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_MAX_DURATION_MS = 60 * 60_000;
export const DEFAULT_KEEPALIVE_INTERVAL_MS = 15_000;
export const DEFAULT_EVENT_BUFFER_SIZE = 256;
export const DEFAULT_LOGIN_CHECK_INTERVAL_MS = 30_000;
/** How long a closed session's events can still be read. */
export const CLOSED_SESSION_RETENTION_MS = 60_000;

export interface LiveSessions {
  start(owner: LiveSessionOwner, tokens: LoginTokens, request: StartRequest): Promise<LiveSession>;
  /** The session with this id if `loginId` owns it; otherwise null. */
  get(id: string, loginId: string): LiveSession | null;
  closeForLogin(loginId: string, reason: string): Promise<void>;
  closeAll(): Promise<void>;
  keepaliveIntervalMs: number;
}

export function createLiveSessions(
  options: AppServerOptions & { loginCheckIntervalMs?: number },
  deps: { store: KeyValueStore; logger: Logger; now: () => number },
): LiveSessions {
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const pool = createProcessPool({
    command: options.command,
    ...(options.configToml ? { configToml: options.configToml } : {}),
    initTimeoutMs: startTimeoutMs,
    keepWarm: options.keepWarmProcess ?? true,
  });
  const settings = {
    tools: options.tools ?? [],
    instructions: options.instructions ?? DEFAULT_INSTRUCTIONS,
    startTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    maxDurationMs: options.maxDurationMs ?? DEFAULT_MAX_DURATION_MS,
    loginCheckIntervalMs: options.loginCheckIntervalMs ?? DEFAULT_LOGIN_CHECK_INTERVAL_MS,
    eventBufferSize: options.eventBufferSize ?? DEFAULT_EVENT_BUFFER_SIZE,
    ...deps,
  };
  const byId = new Map<string, LiveSession>();
  const currentByLogin = new Map<string, LiveSession>();
  /** Bumped by each start: a start that finishes after a newer one began is closed at once. */
  const generation = new Map<string, number>();

  function forget(session: LiveSession): void {
    if (currentByLogin.get(session.ownerLoginId) === session) currentByLogin.delete(session.ownerLoginId);
    const timer = setTimeout(() => byId.delete(session.id), CLOSED_SESSION_RETENTION_MS);
    timer.unref();
  }

  return {
    keepaliveIntervalMs: options.keepaliveIntervalMs ?? DEFAULT_KEEPALIVE_INTERVAL_MS,
    async start(owner, tokens, request) {
      const mine = (generation.get(owner.loginId) ?? 0) + 1;
      generation.set(owner.loginId, mine);
      await currentByLogin.get(owner.loginId)?.close("replaced");
      let appServer;
      try {
        appServer = await pool.take();
      } catch (error) {
        throw new LiveSessionStartError(
          `the codex executable did not start: ${error instanceof Error ? error.message.slice(0, 200) : "unknown error"}`,
        );
      }
      const session = await startLiveSession(appServer, owner, tokens, request, settings);
      void session.closed.then(() => forget(session));
      byId.set(session.id, session);
      if (generation.get(owner.loginId) !== mine) {
        await session.close("replaced");
        throw new LiveSessionStartError("a newer start of this login replaced this one");
      }
      currentByLogin.set(owner.loginId, session);
      return session;
    },
    get(id, loginId) {
      const session = byId.get(id);
      return session && session.ownerLoginId === loginId ? session : null;
    },
    async closeForLogin(loginId, reason) {
      generation.set(loginId, (generation.get(loginId) ?? 0) + 1);
      await currentByLogin.get(loginId)?.close(reason);
    },
    async closeAll() {
      await Promise.all([...byId.values()].map((session) => session.close("shutdown")));
      await pool.close();
    },
  };
}
