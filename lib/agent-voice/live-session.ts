import "server-only";
/**
 * One live agent-voice session: a `codex app-server` process signed in with the login's access
 * token (in memory only), one ephemeral thread with only the configured tools, and a realtime
 * WebRTC call. Maps the process's messages to the events of the contract (docs/api.md) and answers
 * its requests; its tool calls and their confirmations are tool-calls.ts's.
 */
import { randomBytes } from "node:crypto";
import type { AppServerHandoff, AppServerProcess } from "./app-server-process";
import type { SandboxHandle } from "./sandbox/types";
import { declineAnswer } from "./declines";
import { superviseLive } from "./codex-processes";
import { createEventLog, type EventLog, type LiveEvent } from "./event-log";
import { METHOD_NOT_FOUND, RpcError } from "./json-rpc";
import { createToolCalls, type ConfirmOutcome, type HandedOverCall, type ToolCalls } from "./tool-calls";
import type { ConfirmTool, RealtimeTool, ToolAccount } from "./types";
import type { KeyValueStore } from "@/lib/stores/types";
import type { Logger } from "@/lib/logger";
import { LOG_PREFIX } from "@/lib/logger";
import { upstreamSnippet } from "@/lib/upstream/redact";
import { LiveSessionStartError } from "./start-failure";
import { MAX_RPC_LINE_BYTES, type AgentLimits, type ExceededLimit } from "./sandbox/limits";
import { watchLimits } from "./sandbox/limit-watch";

/** How long `thread/realtime/stop` may take before the process is ended regardless. */
const STOP_REQUEST_TIMEOUT_MS = 1_000;

/** A process a limit ended: the `error` event's sentence, the `session.closed` reason and the log line's words. */
const LIMIT_ENDED: Record<ExceededLimit, { reason: string; message: string; log: string }> = {
  memory: {
    reason: "memory_limit",
    message: "The agent needed more memory than this server allows, so the voice session ended.",
    log: "went over its memory limit (LWC_AGENT_MEMORY_MB)",
  },
  cpu: {
    reason: "cpu_limit",
    message: "The agent used more processor time than this server allows, so the voice session ended.",
    log: "went over its CPU time limit (LWC_AGENT_CPU_SECONDS)",
  },
  message: {
    reason: "message_too_large",
    message: "The agent sent a message larger than this server accepts, so the voice session ended.",
    log: `sent a JSON-RPC line over ${MAX_RPC_LINE_BYTES} bytes`,
  },
  processes: {
    reason: "process_limit",
    message: "The agent started more processes than this server allows, so the voice session ended.",
    log: "reached its process limit (LWC_AGENT_MAX_PROCESSES)",
  },
  home: {
    reason: "home_limit",
    message: "The agent wrote more to its folder than this server allows, so the voice session ended.",
    log: "filled its home (LWC_AGENT_HOME_MB)",
  },
};
const START_FAILED = "start_failed";
/** A failed start, or a process over a limit (one the watch found may still run): ended at once, no polite stop. */
const END_AT_ONCE = new Set([START_FAILED, ...Object.values(LIMIT_ENDED).map((ended) => ended.reason)]);
export const DEFAULT_INSTRUCTIONS =
  "You are the voice assistant of a web application. You can only use the tools you are given; " +
  "you cannot run commands, read or change files, or browse. Keep answers short.";

export interface LoginTokens {
  accessToken: string;
  accountId: string;
  plan: string;
}

/** What the live session needs from the login that owns it. */
export interface LiveSessionOwner {
  loginId: string;
  account: ToolAccount;
  /** Fresh tokens after the backend refused the current ones: the login's single-flight refresh. */
  forceRefresh(): Promise<LoginTokens>;
  /** False once the login is signed out or expired. */
  isSignedIn(): Promise<boolean>;
}

interface LiveSessionSettings {
  tools: RealtimeTool[];
  instructions: string;
  startTimeoutMs: number;
  idleTimeoutMs: number;
  maxDurationMs: number;
  loginCheckIntervalMs: number;
  eventBufferSize: number;
  /** Event streams that may follow the session at once; a new one ends the oldest. */
  maxEventStreams: number;
  /** The process's limits: the watch ends the session at the ones the kernel only refuses at (limit-watch.ts). */
  limits: AgentLimits;
  store: KeyValueStore;
  logger: Logger;
  now: () => number;
}

export interface StartRequest {
  sdp: string;
  voice?: string;
  model?: string;
}

export interface LiveSession {
  id: string;
  ownerLoginId: string;
  /** The ChatGPT account of that login (the per-account cap counts by it). */
  ownerAccountId: string;
  events: EventLog;
  /** The answer SDP for the browser. */
  answerSdp: string;
  /** Where its codex runs (plain JSON, no secret): sandbox/types.ts. */
  sandbox: SandboxHandle;
  /** Any request for this session counts as activity for the idle limit. */
  touch(): void;
  confirm(
    callId: string,
    approved: boolean,
    confirmTool: ConfirmTool,
    account: ToolAccount & { loginId: string },
  ): Promise<ConfirmOutcome>;
  close(reason: string): Promise<void>;
  isClosed(): boolean;
  /** Resolves once the session is closed and its process and folder are gone (or it was handed off). */
  closed: Promise<void>;
  /**
   * Stops following it here, codex going on, for another instance to take over: null where it cannot
   * (a local process). End its events once the hand-off is recorded.
   */
  handOff(): LiveSessionHandoff | null;
  /** True once handed off: it ended here, not for the person. */
  wasHandedOff(): boolean;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.replace(/\s+/g, " ").slice(0, 300) : "unknown error";
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The answer SDP, settled by a notification (or the process's exit) while the start waits for it. */
function answerSdpWaiter() {
  let resolve!: (sdp: string) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<string>((onSdp, onError) => {
    resolve = onSdp;
    reject = onError;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** What a notification may read and change in its live session. */
interface NotificationTarget {
  threadId(): string | undefined;
  isLive(): boolean;
  sdp: ReturnType<typeof answerSdpWaiter>;
  events: EventLog;
  close(reason: string): void;
}

/** Maps one notification of the process to the contract's events (docs/api.md), or to the start's answer SDP. */
function onRealtimeNotification(method: string, params: unknown, session: NotificationTarget): void {
  const p = asRecord(params);
  const threadId = session.threadId();
  if (threadId !== undefined && typeof p.threadId === "string" && p.threadId !== threadId) return;
  switch (method) {
    case "thread/realtime/sdp":
      if (typeof p.sdp === "string") session.sdp.resolve(p.sdp);
      return;
    case "thread/realtime/error":
      // Codex's message can quote the provider's reply (and its URL): never passed on or logged.
      if (!session.isLive()) session.sdp.reject(new LiveSessionStartError("provider_refused", "the provider refused or failed the realtime call"));
      else session.events.push("error", { message: "The voice call reported an error." });
      return;
    case "thread/realtime/closed":
      if (session.isLive() && p.reason !== "requested") session.close(`realtime_${String(p.reason ?? "closed")}`);
      return;
    case "thread/realtime/itemAdded": {
      const item = asRecord(p.item);
      if (item.type !== "handoff_request") return;
      session.events.push("handoff", {
        handoffId: typeof item.handoff_id === "string" ? item.handoff_id : null,
        transcript: typeof item.input_transcript === "string" ? item.input_transcript : "",
        activeTranscript: Array.isArray(item.active_transcript) ? item.active_transcript : [],
      });
      return;
    }
    case "error": {
      // A turn error the server will not retry (a retried one is only progress).
      if (p.willRetry === true) return;
      // Codex's message can quote the provider's reply and its URL: the browser gets fixed text.
      session.events.push("error", { message: "The agent could not finish its turn." });
      return;
    }
    default:
      return;
  }
}

/** Answers one request of the process: a tool call, a token refresh, or a decline. */
async function answerRequest(
  method: string,
  params: unknown,
  rpcId: unknown,
  session: { toolCalls: ToolCalls; owner: LiveSessionOwner; logger: Logger; close(reason: string): void },
): Promise<unknown> {
  const { owner, logger } = session;
  if (method === "item/tool/call") return session.toolCalls.onToolCall(params, rpcId);
  if (method === "account/chatgptAuthTokens/refresh") {
    try {
      const fresh = await owner.forceRefresh();
      return { accessToken: fresh.accessToken, chatgptAccountId: fresh.accountId, chatgptPlanType: fresh.plan };
    } catch {
      // A dead login ends the live session; a passing failure just fails this request.
      if (!(await owner.isSignedIn().catch(() => true))) session.close("login_expired");
      logger.warn(`${LOG_PREFIX} realtime token refresh for the agent failed`);
      throw new RpcError(-32603, "token refresh failed");
    }
  }
  const decline = declineAnswer(method);
  if (decline !== undefined) {
    logger.info(`${LOG_PREFIX} realtime agent asked for ${method}: declined`);
    return decline;
  }
  throw new RpcError(METHOD_NOT_FOUND, `${method} is not supported by this client`);
}

/** Signs the process in, starts the thread with only the configured tools, then the realtime call; resolves with the answer SDP. */
async function handshake(
  appServer: AppServerProcess,
  tokens: LoginTokens,
  request: StartRequest,
  settings: LiveSessionSettings,
  onThread: (threadId: string) => void,
  answerSdp: Promise<string>,
): Promise<string> {
  const step = settings.startTimeoutMs;
  await appServer.rpc.request(
    "account/login/start",
    { type: "chatgptAuthTokens", accessToken: tokens.accessToken, chatgptAccountId: tokens.accountId, chatgptPlanType: tokens.plan },
    step,
  );
  const started = asRecord(
    await appServer.rpc.request(
      "thread/start",
      {
        ephemeral: true,
        cwd: appServer.workDir,
        sandbox: "read-only",
        approvalPolicy: "on-request",
        developerInstructions: settings.instructions,
        dynamicTools: settings.tools.map((tool) => ({
          type: "function",
          name: tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema,
        })),
        ...(request.model ? { model: request.model } : {}),
      },
      step,
    ),
  );
  const thread = asRecord(started.thread);
  if (typeof thread.id !== "string") throw new LiveSessionStartError("agent_refused", "thread/start answered without a thread id");
  onThread(thread.id);
  await appServer.rpc.request(
    "thread/realtime/start",
    {
      threadId: thread.id,
      outputModality: "audio",
      transport: { type: "webrtc", sdp: request.sdp },
      ...(request.voice ? { voice: request.voice } : {}),
    },
    step,
  );
  return answerSdp;
}

/** The handshake within the start timeout; any failure is a LiveSessionStartError (codex's own words go to the log only). */
async function startCall(start: () => Promise<string>, settings: LiveSessionSettings): Promise<string> {
  let timeout: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      start(),
      new Promise<never>((_, reject) => {
        timeout = setTimeout(
          () => reject(new LiveSessionStartError("timeout", `no answer within ${settings.startTimeoutMs} ms`)),
          settings.startTimeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timeout);
  }
}

/** What another instance needs to go on with a live session this one hands off (sealed in the store: it holds a secret). */
export interface LiveSessionHandoff {
  id: string;
  threadId: string;
  startedAt: number;
  lastActivity: number;
  /** The last event's seq: the next instance numbers on from it. */
  lastSeq: number;
  pending: HandedOverCall[];
  appServer: AppServerHandoff;
}

/**
 * One live session's running parts, for a start (startLiveSession) or a session taken over from
 * another instance (resumeLiveSession): codex's messages mapped to events, its requests answered,
 * close, the limits, the supervision, and the hand-off.
 */
function liveSessionCore(
  appServer: AppServerProcess,
  owner: LiveSessionOwner,
  settings: LiveSessionSettings,
  from?: LiveSessionHandoff & { kept: LiveEvent[] },
) {
  const { logger, now } = settings;
  const id = from?.id ?? randomBytes(16).toString("base64url");
  const events = createEventLog(settings.eventBufferSize, now, settings.maxEventStreams, from ? { kept: from.kept, lastSeq: from.lastSeq } : undefined);
  const toolCalls = createToolCalls({ tools: settings.tools, owner, store: settings.store, events, logger, now });
  const sdp = answerSdpWaiter();
  let threadId: string | undefined = from?.threadId;
  let live = false;
  let handedOff = false;
  let closing: Promise<void> | undefined;
  let lastActivity = from?.lastActivity ?? now();
  let startedAt = from?.startedAt ?? now();
  let stopSupervising = () => undefined as void;
  let stopWatching = () => undefined as void;
  const closeSoon = (reason: string) => void close(reason);

  const target: NotificationTarget = { threadId: () => threadId, isLive: () => live, sdp, events, close: closeSoon };
  appServer.setHandlers({
    onNotification(method, params) {
      lastActivity = now();
      onRealtimeNotification(method, params, target);
    },
    onRequest(method, params, rpcId) {
      lastActivity = now();
      return answerRequest(method, params, rpcId, { toolCalls, owner, logger, close: closeSoon });
    },
  });

  /** A live process is asked to stop its call first; one whose start failed is ended at once (nothing to keep). */
  async function closeProcess(atOnce: boolean): Promise<void> {
    stopSupervising();
    stopWatching();
    if (atOnce) appServer.killNow();
    else if (threadId !== undefined && !appServer.hasExited()) {
      await appServer.rpc.request("thread/realtime/stop", { threadId }, STOP_REQUEST_TIMEOUT_MS).catch(() => undefined);
    }
    await appServer.close();
  }

  async function closeOnce(reason: string): Promise<void> {
    const wasLive = live;
    live = false;
    toolCalls.endAll();
    await closeProcess(END_AT_ONCE.has(reason));
    if (wasLive) events.push("session.closed", { reason });
    events.end();
  }

  function close(reason: string): Promise<void> {
    closing ??= closeOnce(reason);
    return closing;
  }

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

  /** Ends the live session for `limit`: a fixed sentence to the browser, the variable in the log line. */
  function endForLimit(limit: ExceededLimit): void {
    if (closing !== undefined || !live) return;
    logger.warn(`${LOG_PREFIX} agent voice: a codex process ${LIMIT_ENDED[limit].log}; its live session ended`);
    events.push("error", { message: LIMIT_ENDED[limit].message });
    closeSoon(LIMIT_ENDED[limit].reason);
  }

  void appServer.exited.then(({ limit }) => {
    if (closing === undefined && live) {
      if (limit) endForLimit(limit);
      else {
        events.push("error", { message: "The agent process stopped unexpectedly." });
        closeSoon("process_exited");
      }
    }
    sdp.reject(new LiveSessionStartError("stopped", `the app-server process exited during the start${limit ? ` (${LIMIT_ENDED[limit].log})` : ""}`));
  });

  /** From here on the session is live: supervised, under its limits' watch. */
  function goLive(): void {
    live = true;
    stopSupervising = superviseLive({
      idleTimeoutMs: settings.idleTimeoutMs,
      maxDurationMs: settings.maxDurationMs,
      loginCheckIntervalMs: settings.loginCheckIntervalMs,
      now,
      startedAt,
      lastActivity: () => lastActivity,
      isSignedIn: () => owner.isSignedIn(),
      close: closeSoon,
    });
    // A local sandbox's processes are this machine's to read; a microVM is limited by its own size.
    const { handle } = appServer;
    if (handle.kind === "local") stopWatching = watchLimits({ root: handle.pid, homeDir: handle.home, limits: settings.limits, onReached: endForLimit });
    events.onEnd(() => resolveClosed());
  }

  /** Stops following codex without ending it (a VM only), for another instance to go on: null where it cannot. */
  function handOff(): LiveSessionHandoff | null {
    if (!appServer.handOff || closing !== undefined || !live || threadId === undefined) return null;
    handedOff = true;
    live = false;
    closing = Promise.resolve();
    stopSupervising();
    stopWatching();
    const pending = toolCalls.handOver();
    // The caller ends the events once the hand-off is recorded: the streams this instance serves then
    // end without `session.closed`, and the browser opens the next one elsewhere.
    return { id, threadId, startedAt, lastActivity, lastSeq: events.lastSeq(), pending, appServer: appServer.handOff() };
  }

  const session: LiveSession = {
    id,
    ownerLoginId: owner.loginId,
    ownerAccountId: owner.account.accountId,
    events,
    answerSdp: "",
    sandbox: appServer.handle,
    touch() {
      lastActivity = now();
    },
    confirm(callId, approved, confirmTool, account) {
      lastActivity = now();
      return toolCalls.confirm(callId, approved, confirmTool, account);
    },
    close: (reason) => close(reason).then(() => undefined),
    isClosed: () => closing !== undefined,
    wasHandedOff: () => handedOff,
    handOff,
    closed,
  };
  return {
    session,
    sdp,
    toolCalls,
    close,
    resolveClosed,
    goLive,
    setThread: (thread: string) => (threadId = thread),
    markStarted: () => (startedAt = now()),
  };
}

export async function startLiveSession(
  appServer: AppServerProcess,
  owner: LiveSessionOwner,
  tokens: LoginTokens,
  request: StartRequest,
  settings: LiveSessionSettings,
): Promise<LiveSession> {
  const core = liveSessionCore(appServer, owner, settings);
  let answerSdp: string;
  try {
    answerSdp = await startCall(() => handshake(appServer, tokens, request, settings, core.setThread, core.sdp.promise), settings);
  } catch (error) {
    await core.close(START_FAILED);
    core.resolveClosed();
    if (error instanceof LiveSessionStartError) throw error;
    // codex's own words can name the upstream address or quote the provider: the log line only.
    settings.logger.warn(`${LOG_PREFIX} realtime app-server refused the start: ${upstreamSnippet(describe(error)) ?? "no message"}`);
    throw new LiveSessionStartError("agent_refused", "the app-server refused to start the voice session");
  }
  core.markStarted();
  core.goLive();
  core.session.events.push("session.started", { sessionId: core.session.id });
  return { ...core.session, answerSdp };
}

/**
 * Goes on with a live session another instance handed off: the same id, thread and events (their
 * numbering goes on), its waiting tool calls, its supervision from its own start; codex's lines from
 * the one after the hand-off's cursor.
 */
export function resumeLiveSession(
  appServer: AppServerProcess,
  owner: LiveSessionOwner,
  handoff: LiveSessionHandoff,
  kept: LiveEvent[],
  settings: LiveSessionSettings,
): LiveSession {
  const core = liveSessionCore(appServer, owner, settings, { ...handoff, kept });
  core.toolCalls.adopt(handoff.pending, (rpcId, answer) => appServer.rpc.respond(rpcId, answer));
  core.goLive();
  return core.session;
}
