import "server-only";
/**
 * One live agent-voice session: a `codex app-server` process signed in with the login's access
 * token (in memory only), one ephemeral thread with only the configured tools, and a realtime
 * WebRTC call. Maps the process's messages to the events of the contract (docs/api.md) and answers
 * the process's requests.
 */
import { randomBytes } from "node:crypto";
import type { AppServerProcess } from "./app-server-process";
import { declineAnswer } from "./declines";
import { superviseLive } from "./codex-processes";
import { createEventLog, type EventLog } from "./event-log";
import { METHOD_NOT_FOUND, RpcError } from "./json-rpc";
import type { ConfirmTool, PendingToolCall, RealtimeTool, ToolAccount, ToolContext, ToolOutput } from "./types";
import type { KeyValueStore } from "@/lib/stores/types";
import type { Logger } from "@/lib/logger";
import { LOG_PREFIX } from "@/lib/logger";
import { upstreamSnippet } from "@/lib/upstream/redact";
import { LiveSessionStartError } from "./start-failure";
import { MAX_RPC_LINE_BYTES, type ExceededLimit } from "./sandbox/limits";

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
};
const START_FAILED = "start_failed";
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
  store: KeyValueStore;
  logger: Logger;
  now: () => number;
}

export interface StartRequest {
  sdp: string;
  voice?: string;
  model?: string;
}


type ConfirmOutcome =
  | { kind: "done"; approved: boolean }
  | { kind: "not_pending" }
  | { kind: "handler_failed"; message: string };

interface PendingEntry {
  call: PendingToolCall;
  state: "pending" | "confirming";
  answer(result: unknown): void;
}

export interface LiveSession {
  id: string;
  ownerLoginId: string;
  /** The ChatGPT account of that login (the per-account cap counts by it). */
  ownerAccountId: string;
  events: EventLog;
  /** The answer SDP for the browser. */
  answerSdp: string;
  /** The app-server process id (its process group id too). */
  pid: number;
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
  /** Resolves once the session is closed and its process and folder are gone. */
  closed: Promise<void>;
}

function toolText(output: ToolOutput): string {
  return typeof output === "string" ? output : JSON.stringify(output);
}

function toolAnswer(text: string, success: boolean) {
  return { contentItems: [{ type: "inputText", text }], success };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.replace(/\s+/g, " ").slice(0, 300) : "unknown error";
}

/** For log lines about tools: the error's name only (a tool's message may quote what the person said). */
function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export async function startLiveSession(
  appServer: AppServerProcess,
  owner: LiveSessionOwner,
  tokens: LoginTokens,
  request: StartRequest,
  settings: LiveSessionSettings,
): Promise<LiveSession> {
  const { logger, now } = settings;
  const id = randomBytes(16).toString("base64url");
  const events = createEventLog(settings.eventBufferSize, now, settings.maxEventStreams);
  const tools = new Map(settings.tools.map((tool) => [tool.name, tool]));
  const pending = new Map<string, PendingEntry>();
  const toolContext: ToolContext = { account: owner.account, store: settings.store, now };
  let threadId: string | undefined;
  let live = false;
  let closing: Promise<void> | undefined;
  let lastActivity = now();
  let stopSupervising = () => undefined as void;

  let resolveSdp!: (sdp: string) => void;
  let rejectSdp!: (error: Error) => void;
  const answerSdp = new Promise<string>((resolve, reject) => {
    resolveSdp = resolve;
    rejectSdp = reject;
  });
  answerSdp.catch(() => undefined);

  function onNotification(method: string, params: unknown): void {
    lastActivity = now();
    const p = asRecord(params);
    if (threadId !== undefined && typeof p.threadId === "string" && p.threadId !== threadId) return;
    switch (method) {
      case "thread/realtime/sdp":
        if (typeof p.sdp === "string") resolveSdp(p.sdp);
        return;
      case "thread/realtime/error":
        // Codex's message can quote the provider's reply (and its URL): never passed on or logged.
        if (!live) rejectSdp(new LiveSessionStartError("provider_refused", "the provider refused or failed the realtime call"));
        else events.push("error", { message: "The voice call reported an error." });
        return;
      case "thread/realtime/closed":
        if (live && p.reason !== "requested") void close(`realtime_${String(p.reason ?? "closed")}`);
        return;
      case "thread/realtime/itemAdded": {
        const item = asRecord(p.item);
        if (item.type !== "handoff_request") return;
        events.push("handoff", {
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
        events.push("error", { message: "The agent could not finish its turn." });
        return;
      }
      default:
        return;
    }
  }

  async function runTool(tool: RealtimeTool, callId: string, args: unknown) {
    try {
      const output = await tool.run(args, toolContext);
      events.push("tool.completed", { callId, tool: tool.name });
      return toolAnswer(toolText(output), true);
    } catch (error) {
      logger.warn(`${LOG_PREFIX} realtime tool ${tool.name} failed: ${errorName(error)}`);
      events.push("tool.failed", { callId, tool: tool.name, message: "The tool failed." });
      return toolAnswer("The tool failed.", false);
    }
  }

  function awaitConfirmation(tool: RealtimeTool, callId: string, args: unknown): Promise<unknown> {
    let review: Record<string, unknown>;
    try {
      review = tool.review ? tool.review(args) : {};
    } catch (error) {
      events.push("tool.failed", { callId, tool: tool.name, message: "The tool was called with invalid arguments." });
      logger.warn(`${LOG_PREFIX} realtime tool ${tool.name} refused its arguments: ${errorName(error)}`);
      return Promise.resolve(toolAnswer("Invalid arguments.", false));
    }
    return new Promise((resolve) => {
      const call: PendingToolCall = {
        callId,
        tool: tool.name,
        arguments: args,
        review,
        owner: { loginId: owner.loginId, accountId: owner.account.accountId },
        createdAt: now(),
      };
      pending.set(callId, { call, state: "pending", answer: resolve });
      events.push("tool.pending_confirmation", { callId, tool: tool.name, review });
    });
  }

  async function onToolCall(params: unknown): Promise<unknown> {
    const p = asRecord(params);
    const callId = typeof p.callId === "string" ? p.callId : "";
    const name = typeof p.tool === "string" ? p.tool : "";
    const tool = p.namespace == null ? tools.get(name) : undefined;
    if (!tool || callId === "") {
      events.push("tool.failed", { callId, tool: name, message: "No such tool." });
      throw new RpcError(METHOD_NOT_FOUND, `unknown tool ${name.slice(0, 64)}`);
    }
    if (pending.has(callId)) throw new RpcError(-32600, "duplicate callId");
    events.push("tool.running", { callId, tool: tool.name });
    return tool.needsConfirmation ? awaitConfirmation(tool, callId, p.arguments) : runTool(tool, callId, p.arguments);
  }

  async function onRefresh(): Promise<unknown> {
    try {
      const fresh = await owner.forceRefresh();
      return { accessToken: fresh.accessToken, chatgptAccountId: fresh.accountId, chatgptPlanType: fresh.plan };
    } catch (error) {
      // A dead login ends the live session; a passing failure just fails this request.
      if (!(await owner.isSignedIn().catch(() => true))) void close("login_expired");
      logger.warn(`${LOG_PREFIX} realtime token refresh for the agent failed`);
      void error;
      throw new RpcError(-32603, "token refresh failed");
    }
  }

  async function onRequest(method: string, params: unknown): Promise<unknown> {
    lastActivity = now();
    if (method === "item/tool/call") return onToolCall(params);
    if (method === "account/chatgptAuthTokens/refresh") return onRefresh();
    const decline = declineAnswer(method);
    if (decline !== undefined) {
      logger.info(`${LOG_PREFIX} realtime agent asked for ${method}: declined`);
      return decline;
    }
    throw new RpcError(METHOD_NOT_FOUND, `${method} is not supported by this client`);
  }

  appServer.setHandlers({ onNotification, onRequest });

  /** A live process is asked to stop its call first; one whose start failed is ended at once (nothing to keep). */
  async function closeProcess(atOnce: boolean): Promise<void> {
    stopSupervising();
    if (atOnce) appServer.killNow();
    else if (threadId !== undefined && !appServer.hasExited()) {
      await appServer.rpc.request("thread/realtime/stop", { threadId }, STOP_REQUEST_TIMEOUT_MS).catch(() => undefined);
    }
    await appServer.close();
  }

  async function closeOnce(reason: string): Promise<void> {
    const wasLive = live;
    live = false;
    for (const entry of pending.values()) entry.answer(toolAnswer("The voice session ended before this was confirmed.", false));
    pending.clear();
    await closeProcess(reason === START_FAILED);
    if (wasLive) events.push("session.closed", { reason });
    events.end();
  }

  function close(reason: string): Promise<void> {
    closing ??= closeOnce(reason);
    return closing;
  }

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

  void appServer.exited.then(({ limit }) => {
    if (closing === undefined && live) {
      if (limit) {
        logger.warn(`${LOG_PREFIX} agent voice: a codex process ${LIMIT_ENDED[limit].log}; its live session ended`);
        events.push("error", { message: LIMIT_ENDED[limit].message });
        void close(LIMIT_ENDED[limit].reason);
      } else {
        events.push("error", { message: "The agent process stopped unexpectedly." });
        void close("process_exited");
      }
    }
    rejectSdp(new LiveSessionStartError("stopped", `the app-server process exited during the start${limit ? ` (${LIMIT_ENDED[limit].log})` : ""}`));
  });

  async function handshake(): Promise<string> {
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
    threadId = thread.id;
    await appServer.rpc.request(
      "thread/realtime/start",
      {
        threadId,
        outputModality: "audio",
        transport: { type: "webrtc", sdp: request.sdp },
        ...(request.voice ? { voice: request.voice } : {}),
      },
      step,
    );
    return answerSdp;
  }

  let timeout: NodeJS.Timeout | undefined;
  let sdp: string;
  try {
    sdp = await Promise.race([
      handshake(),
      new Promise<never>((_, reject) => {
        timeout = setTimeout(
          () => reject(new LiveSessionStartError("timeout", `no answer within ${settings.startTimeoutMs} ms`)),
          settings.startTimeoutMs,
        );
      }),
    ]);
  } catch (error) {
    await close(START_FAILED);
    resolveClosed();
    if (error instanceof LiveSessionStartError) throw error;
    // codex's own words can name the upstream address or quote the provider: the log line only.
    logger.warn(`${LOG_PREFIX} realtime app-server refused the start: ${upstreamSnippet(describe(error)) ?? "no message"}`);
    throw new LiveSessionStartError("agent_refused", "the app-server refused to start the voice session");
  } finally {
    clearTimeout(timeout);
  }

  live = true;
  events.push("session.started", { sessionId: id });
  stopSupervising = superviseLive({
    idleTimeoutMs: settings.idleTimeoutMs,
    maxDurationMs: settings.maxDurationMs,
    loginCheckIntervalMs: settings.loginCheckIntervalMs,
    now,
    lastActivity: () => lastActivity,
    isSignedIn: () => owner.isSignedIn(),
    close: (reason) => void close(reason),
  });
  events.onEnd(() => resolveClosed());

  return {
    id,
    ownerLoginId: owner.loginId,
    ownerAccountId: owner.account.accountId,
    events,
    answerSdp: sdp,
    pid: appServer.pid,
    touch() {
      lastActivity = now();
    },
    async confirm(callId, approved, confirmTool, account) {
      lastActivity = now();
      const entry = pending.get(callId);
      if (!entry || entry.state !== "pending") return { kind: "not_pending" };
      entry.state = "confirming";
      const tool = entry.call.tool;
      if (!approved) {
        pending.delete(callId);
        entry.answer(toolAnswer("The person declined. Nothing was done.", false));
        events.push("tool.completed", { callId, tool, approved: false });
        return { kind: "done", approved: false };
      }
      let output: ToolOutput;
      try {
        output = await confirmTool({
          callId,
          confirmation: { approved: true },
          account,
          readPendingCall: () => {
            const current = pending.get(callId);
            return current ? current.call : null;
          },
          store: settings.store,
          now,
        });
      } catch (error) {
        // Back to pending: the person can try again.
        if (pending.get(callId) === entry) entry.state = "pending";
        logger.warn(`${LOG_PREFIX} realtime confirmation of ${tool} failed: ${errorName(error)}`);
        return { kind: "handler_failed", message: "The confirmation handler failed. The action is still pending." };
      }
      if (pending.get(callId) !== entry) return { kind: "not_pending" }; // The session closed meanwhile.
      pending.delete(callId);
      entry.answer(toolAnswer(toolText(output), true));
      events.push("tool.completed", { callId, tool, approved: true });
      return { kind: "done", approved: true };
    },
    close: (reason) => close(reason).then(() => undefined),
    isClosed: () => closing !== undefined,
    closed,
  };
}
