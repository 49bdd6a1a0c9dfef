import "server-only";
/**
 * The agent-voice routes (`/realtime/app-server…`). They exist only when `realtime.agentVoice` is
 * configured. The bridge (child processes) is Node-only and loaded with a dynamic import when the
 * handler is created (which also sweeps folders a killed server left), so this file and the rest
 * of the handler stay free of Node-specific imports.
 */
import { API_ERRORS } from "@/lib/error-codes";
import { DEFAULT_START_TIMEOUT_MS } from "@/lib/agent-voice/defaults";
import { isRefreshTokenInvalid } from "@/lib/upstream/errors";
import type { LiveSessions } from "@/lib/agent-voice/live-sessions";
import type { ServedSession } from "@/lib/agent-voice/cluster/remote-session";
import { isStartRefused, type StartRefusedError } from "@/lib/agent-voice/start-refused";
import { isLiveSessionStartError } from "@/lib/agent-voice/start-failure";
import type { LimitMechanism } from "@/lib/agent-voice/sandbox/limits";
import type { AgentSandbox, SandboxStatus } from "@/lib/agent-voice/sandbox/types";
import { isSandboxUnavailable } from "@/lib/agent-voice/sandbox/unavailable";
import type { AgentVoiceOptions } from "@/lib/agent-voice/types";
import type { ModelBackends } from "../models/backend";
import type { ServerContext } from "../context";
import { ApiError, errorResponse } from "../http/api-error";
import { jsonResponse, NO_STORE } from "../http/json";
import { readJsonBody } from "../http/json-body";
import { describeErrorForLog, LOG_PREFIX } from "@/lib/logger";
import { limitVoiceCalls } from "../voice/limit";
import type { RouteHandler } from "../http/router";
import { isAuthenticated, type AuthenticatedRecord, type LoadedSession } from "../session/record";
import type { SessionManager } from "../session/manager";
import { parseConfirmBody, parseStartBody } from "./body";
import { requireCapability } from "../session/capabilities";

/** A start that failed for a reason not its own (a bug): the browser still gets a fixed sentence. */
const START_FAILED_MESSAGE = "The agent could not start on this server. The server's log says why.";

/** What /api/health reports for agent voice. */
export type AgentVoiceState = "sandboxed" | "vercel" | "unsandboxed" | "unavailable";

/**
 * `realtime_start_superseded` for a start a newer one overtook; `realtime_busy` with retry-after:
 * 429 for the account's cap, 503 for the server's capacity (its cap, its shutdown, the sandbox platform's refusal).
 */
function refusedResponse(refused: StartRefusedError): Response {
  if (refused.refusal === "superseded") return errorResponse("realtime_start_superseded", { message: refused.message });
  const retryAfterSeconds = refused.retryAfterSeconds ?? 30;
  return errorResponse(
    "realtime_busy",
    { message: refused.message, retryAfterSeconds },
    { status: refused.refusal === "account_busy" ? 429 : 503, headers: { "retry-after": String(retryAfterSeconds) } },
  );
}

export function createAgentVoiceRoutes(
  ctx: ServerContext,
  manager: SessionManager,
  backends: ModelBackends,
  agentVoice: AgentVoiceOptions,
) {
  const { options } = ctx;
  // One body limit for every realtime route (LWC_REALTIME_MAX_REQUEST_BYTES).
  const { maxRequestBytes } = options.realtime;
  // The sandbox every codex process runs in (bwrap unless configured off), shared with the bridge.
  // A Vercel one sweeps, once, the sandboxes no live session in the store uses.
  const sandbox: Promise<AgentSandbox> = import("@/lib/agent-voice/sandbox").then(({ resolveAgentSandbox, sandboxNetworkOptions }) =>
    resolveAgentSandbox(agentVoice.sandbox, agentVoice.sandboxReadOnlyPaths, sandboxNetworkOptions(agentVoice.sandboxAllowHosts ?? [], options.logger), {
      ...(agentVoice.vercelSandbox ? { settings: agentVoice.vercelSandbox } : {}),
      logger: options.logger,
      startUpSweep: { store: options.store, startTimeoutMs: agentVoice.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS },
    }),
  );
  const liveSessions: Promise<LiveSessions> = Promise.all([import("@/lib/agent-voice/live-sessions"), sandbox]).then(
    ([{ createLiveSessions }, resolved]) =>
      createLiveSessions(agentVoice, {
        store: options.store,
        sealer: ctx.sealer,
        ...(options.confirmTool ? { confirmTool: options.confirmTool } : {}),
        logger: options.logger,
        now: options.now,
        sandbox: resolved,
      }),
  );
  if (agentVoice.sandbox === "off" || (typeof agentVoice.sandbox === "object" && agentVoice.sandbox.name === "off")) {
    options.logger.warn(
      `${LOG_PREFIX} agent voice runs WITHOUT a sandbox (LWC_AGENT_SANDBOX=off): each codex process can read every file ` +
        "and process environment the server's user can (the app's folder and .env, /tmp, /proc/<pid>/environ with LWC_SECRET). " +
        "Use it only where bubblewrap cannot run; see docs/agent-voice.md#the-sandbox.",
    );
  }
  let loggedReason: string | undefined;
  /** Logs why agent voice is unavailable and how to fix it, once for each reason. */
  function logUnavailable(name: string, reason: string, fix: string): void {
    if (loggedReason === reason) return;
    loggedReason = reason;
    options.logger.error(`${LOG_PREFIX} agent voice is unavailable: its ${name} sandbox cannot start (${reason}). ${fix}`);
  }
  /**
   * Whether codex processes can start: the sandbox's probe (once) and, each time, that it would not
   * show the app's folder or an env file the app read.
   */
  async function sandboxStatus(): Promise<SandboxStatus & { name: string }> {
    const resolved = await sandbox;
    const status = await resolved.status(agentVoice.command);
    if (!status.available) logUnavailable(resolved.name, status.reason, status.fix);
    return { ...status, name: resolved.name };
  }
  // Probe at start-up, so the log says it before anyone presses Start.
  sandbox.then(() => sandboxStatus()).catch(() => undefined);
  // Not awaited by anyone until the first request: a failure to load is reported there, and logged now.
  liveSessions.catch((error: unknown) =>
    options.logger.error(`${LOG_PREFIX} agent voice could not be loaded: ${describeErrorForLog(error)}`),
  );
  const bridge = () => liveSessions;

  async function isModelAllowed(session: LoadedSession<AuthenticatedRecord>, model: string): Promise<boolean> {
    if (options.allowedModels) return options.allowedModels.has(model);
    return (await backends.catalogue(session)).some((listed) => listed.slug === model);
  }

  /** The login that owns a live session, as the session needs it: its account, its refresh, whether it is still signed in. */
  function ownerFor(sessionId: string, record: AuthenticatedRecord) {
    let current = record;
    return {
      loginId: record.loginId,
      account: { accountId: record.account.accountId, email: record.account.email, plan: record.account.plan },
      async forceRefresh() {
        const latest = await ctx.sessions.load(sessionId);
        if (latest?.state === "authenticated") current = latest;
        current = await manager.forceRefresh({ id: sessionId, record: current });
        return { accessToken: current.tokens.accessToken, accountId: current.account.accountId, plan: current.account.plan };
      },
      async isSignedIn() {
        return (await ctx.sessions.load(sessionId))?.state === "authenticated";
      },
    };
  }

  /**
   * The signed-in session's live session `id`, or null (unknown, closed long ago, or another
   * login's). One another instance handed off is taken over here.
   */
  async function findLive(
    request: Request,
    id: string | undefined,
    bringHere = false,
  ): Promise<{ session: LoadedSession<AuthenticatedRecord>; live: ServedSession }> {
    const session = await manager.read(request);
    if (!isAuthenticated(session)) throw new ApiError("not_authenticated");
    requireCapability(session.record, "agentVoice");
    // Hosted here, or by another instance sharing the store (lib/agent-voice/cluster/).
    const live = id ? await (await liveSessions).get(id, session.record.loginId, ownerFor(session.id, session.record), bringHere) : null;
    if (!live) throw new ApiError("realtime_session_not_found");
    return { session, live };
  }

  function accountCheckFailed(error: unknown): ApiError {
    if (isRefreshTokenInvalid(error)) return new ApiError("not_authenticated");
    return new ApiError("realtime_app_server_start_failed", { message: "Could not check the account with the provider. Try again shortly." });
  }

  const start: RouteHandler = async (request) => {
    const session = await manager.read(request);
    if (!isAuthenticated(session)) throw new ApiError("not_authenticated");
    // A session without agent voice (a SIWC one: plan usage covers text replies only): nothing is asked or spawned.
    requireCapability(session.record, "agentVoice");
    // Fail closed, before anything else is asked or spawned.
    if (!(await sandboxStatus()).available) throw new ApiError("agent_sandbox_unavailable");
    const json = await readJsonBody(request, {
      maxRequestBytes,
      tooLarge: "realtime_request_too_large",
      invalid: "invalid_realtime_request",
      shape: "{sdp, session: {voice, model}}",
    });
    if (!json.ok) return json.response;
    const parsed = parseStartBody(json.body);
    if (!parsed.ok) throw new ApiError("invalid_realtime_request", { message: parsed.message });
    const { sdp, voice, model } = parsed.value;

    let allowed: boolean;
    try {
      allowed = model === undefined || (await isModelAllowed(session, model));
    } catch (error) {
      throw accountCheckFailed(error);
    }
    if (!allowed) throw new ApiError("realtime_model_not_allowed", { model });
    // The voice throttle, before tokens are refreshed; a store that does not answer is a 503 (fail closed).
    await limitVoiceCalls(ctx, session.record.loginId);
    let record: AuthenticatedRecord;
    try {
      record = await manager.freshTokens(session);
    } catch (error) {
      throw accountCheckFailed(error);
    }

    const owner = ownerFor(session.id, record);
    const tokens = { accessToken: record.tokens.accessToken, accountId: record.account.accountId, plan: record.account.plan };
    try {
      const live = await (await bridge()).start(owner, tokens, { sdp, ...(voice ? { voice } : {}), ...(model ? { model } : {}) });
      if (request.signal.aborted) {
        // Nobody will use this call: do not leave its process running until the idle limit.
        await live.close("closed_by_client");
        return new Response(null, { status: 499 });
      }
      return jsonResponse({ sessionId: live.id, sdp: live.answerSdp }, { status: 201 });
    } catch (error) {
      if (isStartRefused(error)) return refusedResponse(error);
      if (isSandboxUnavailable(error)) {
        logUnavailable((await sandbox).name, error.reason, error.fix);
        throw new ApiError("agent_sandbox_unavailable");
      }
      // The browser gets a fixed sentence; the command, paths and codex's or the sandbox's words go to the log only.
      const detail = isLiveSessionStartError(error) ? error.detail : describeErrorForLog(error);
      options.logger.warn(`${LOG_PREFIX} realtime app-server start failed: ${detail.slice(0, 400)}`);
      return errorResponse("realtime_app_server_start_failed", {
        message: isLiveSessionStartError(error) ? error.message : START_FAILED_MESSAGE,
      });
    }
  };

  const events: RouteHandler = async (request, params) => {
    // The instance serving the stream hosts the call, where it can move (a VM): asked over from another.
    const { live } = await findLive(request, params.id, true);
    const afterText = new URL(request.url).searchParams.get("after") ?? "0";
    if (!/^\d{1,15}$/.test(afterText)) {
      throw new ApiError("invalid_realtime_request", { message: "`after` must be a non-negative integer (an event's seq)." });
    }
    live.touch();
    const encoder = new TextEncoder();
    const keepaliveMs = (await bridge()).keepaliveIntervalMs;
    let cleanup = () => undefined as void;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const send = (event: object) => controller.enqueue(encoder.encode(`${JSON.stringify(event)}\n`));
        let done = false;
        let unsubscribe = () => undefined as unknown;
        let stopOnEnd = () => undefined as unknown;
        const keepalive = setInterval(
          () => send({ seq: live.events.lastSeq(), type: "keepalive", at: options.now() }),
          keepaliveMs,
        );
        // Before a serverless function's time limit cuts it: the call is handed off (where it can
        // move), the stream ends, and the browser's next stream (on any instance) takes it over.
        const timeLimit =
          options.maxStreamMs === false ? undefined : setTimeout(() => void bridge().then((sessions) => sessions.release(live.id)).finally(end), options.maxStreamMs);
        cleanup = () => {
          if (done) return;
          done = true;
          clearInterval(keepalive);
          clearTimeout(timeLimit);
          unsubscribe();
          stopOnEnd();
          request.signal.removeEventListener("abort", cleanup);
        };
        /** Ends the stream from our side: the session ended, or a newer stream pushed this one out. */
        const end = () => {
          if (done) return;
          cleanup();
          controller.close();
        };
        // The kept events first; a session that already ended then ends the stream at once.
        unsubscribe = live.events.subscribe(Number(afterText), send, end);
        stopOnEnd = live.events.onEnd(end);
        request.signal.addEventListener("abort", cleanup);
      },
      cancel() {
        cleanup();
      },
    });
    return new Response(stream, {
      status: 200,
      headers: {
        "content-type": "application/x-ndjson; charset=utf-8",
        "cache-control": NO_STORE,
        "x-accel-buffering": "no",
      },
    });
  };

  const confirm: RouteHandler = async (request, params) => {
    const { session, live } = await findLive(request, params.id);
    const confirmTool = options.confirmTool;
    if (!confirmTool) throw new ApiError("realtime_confirmation_not_configured");
    const json = await readJsonBody(request, {
      maxRequestBytes,
      tooLarge: "realtime_request_too_large",
      invalid: "invalid_realtime_confirmation",
      shape: "{callId, confirmation: {approved}}",
    });
    if (!json.ok) return json.response;
    const parsed = parseConfirmBody(json.body);
    if (!parsed.ok) throw new ApiError("invalid_realtime_confirmation", { message: parsed.message });
    const account = { ...session.record.account, loginId: session.record.loginId };
    const outcome = await live.confirm(parsed.value.callId, parsed.value.confirmation.approved, confirmTool, account);
    if (outcome.kind === "not_pending") {
      return errorResponse("realtime_confirmation_failed", { message: "This call is not waiting for a confirmation." });
    }
    if (outcome.kind === "handler_failed") return errorResponse("realtime_confirmation_failed", { message: outcome.message }, { status: 500 });
    return jsonResponse({ callId: parsed.value.callId, approved: outcome.approved });
  };

  const close: RouteHandler = async (request, params) => {
    const { live } = await findLive(request, params.id);
    await live.close("closed_by_client");
    return jsonResponse({ sessionId: live.id, status: "closed" });
  };

  /** Whether agent mode can start here: the voice page asks before it offers agent mode. */
  const status: RouteHandler = async (request) => {
    const session = await manager.read(request);
    if (!isAuthenticated(session)) throw new ApiError("not_authenticated");
    requireCapability(session.record, "agentVoice");
    const state = await sandboxStatus();
    return jsonResponse({
      available: state.available,
      sandbox: state.name,
      ...(state.available ? {} : { message: API_ERRORS.agent_sandbox_unavailable.message }),
    });
  };

  const notes: RouteHandler = async (request) => {
    const session = await manager.read(request);
    if (!isAuthenticated(session)) throw new ApiError("not_authenticated");
    requireCapability(session.record, "agentVoice");
    const { listNotes } = await import("@/lib/agent-voice/tools/notes");
    return jsonResponse({ notes: await listNotes(options.store, session.record.account.accountId) });
  };

  return {
    routes: [
      { pattern: "/realtime/app-server", methods: { POST: start } },
      { pattern: "/realtime/app-server/status", methods: { GET: status } },
      { pattern: "/realtime/app-server/notes", methods: { GET: notes } },
      { pattern: "/realtime/app-server/:id", methods: { DELETE: close } },
      { pattern: "/realtime/app-server/:id/events", methods: { GET: events } },
      { pattern: "/realtime/app-server/:id/confirm", methods: { POST: confirm } },
    ],
    /** Logout or an expired login: ends the login's live session (`reason` goes into `session.closed`). */
    async closeForLogin(loginId: string, reason: "logged_out" | "login_expired"): Promise<void> {
      await (await liveSessions).closeForLogin(loginId, reason);
    },
    /** For /api/health: whether agent voice can start, and in which sandbox. */
    async state(): Promise<AgentVoiceState> {
      const current = await sandboxStatus();
      if (!current.available) return "unavailable";
      if (current.name === "off") return "unsandboxed";
      return current.name === "vercel" ? "vercel" : "sandboxed";
    },
    /** For /api/health: how each codex process's memory and process caps hold (null while agent voice is unavailable). */
    async limits(): Promise<LimitMechanism | null> {
      const current = await sandboxStatus();
      return current.available ? current.limits : null;
    },
    /** Shutdown: every live session and codex process. */
    async close(): Promise<void> {
      await (await liveSessions).close();
    },
  };
}
