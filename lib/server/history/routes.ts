import "server-only";
/**
 * The chat history's routes (docs/api.md#chat-history). Every route but the public share read
 * needs a signed-in session and works on that session's provider account; non-GET routes pass the
 * handler's CSRF check first. Order: signed in (401) → history on (403) → per-session rate limit
 * (429) → body size (413) → body shape (400) → the database (503 when it cannot be reached).
 */
import type { ApiErrorCode } from "@/lib/error-codes";
import { MAX_HISTORY_REQUEST_BYTES } from "@/lib/history/limits";
import { HistoryQuotaError } from "@/lib/history/push";
import type { HistoryStore } from "@/lib/history/store";
import { describeErrorForLog, LOG_PREFIX } from "@/lib/logger";
import type { ServerContext } from "../context";
import { ApiError, errorResponse, rateLimited } from "../http/api-error";
import { loginLimitKeys } from "../http/client-address";
import { jsonResponse } from "../http/json";
import { readJsonBody } from "../http/json-body";
import type { RouteDefinition, RouteHandler } from "../http/router";
import type { SessionManager } from "../session/manager";
import { isAuthenticated } from "../session/record";
import { changesQuery, describeIssue, historyId, instructionsBody, pushBody, shareBody } from "./schemas";

const HISTORY_DISABLED_MESSAGE =
  "This server keeps no chat history (LWC_CHAT_HISTORY=browser, or no database where it runs): conversations stay in the browser.";
const UNAVAILABLE_MESSAGE = "The chat history database cannot be reached. Try again shortly; nothing was lost.";
const ROBOTS_HEADER = { "x-robots-tag": "noindex, nofollow" };

type AccountRoute = (request: Request, accountId: string, params: Readonly<Record<string, string>>, history: HistoryStore) => Promise<Response>;

export function createHistoryRoutes(ctx: ServerContext, manager: SessionManager, history: HistoryStore | undefined): RouteDefinition[] {
  const { options } = ctx;

  function unavailable(error: unknown, what: string): Response {
    options.logger.error(`${LOG_PREFIX} chat history ${what} failed: ${describeDatabaseError(error)}`);
    return errorResponse("history_unavailable", { message: UNAVAILABLE_MESSAGE });
  }

  const forAccount =
    (what: string, serve: AccountRoute): RouteHandler =>
    async (request, params) => {
      const session = await manager.read(request);
      if (!isAuthenticated(session)) throw new ApiError("not_authenticated");
      if (!history) throw new ApiError("history_disabled", { message: HISTORY_DISABLED_MESSAGE });
      if (ctx.historyLimiter) {
        const limit = await ctx.historyLimiter.limit(session.record.loginId);
        if (!limit.success) throw rateLimited(limit.reset, options.now());
      }
      try {
        return await serve(request, session.record.account.accountId, params, history);
      } catch (error) {
        if (error instanceof HistoryQuotaError) {
          return errorResponse("history_quota_exceeded", {
            maxBytes: error.maxBytes,
            message: "This account's chat history is full on this server. Delete conversations to make room.",
          });
        }
        return unavailable(error, what);
      }
    };

  const readBody = (request: Request) =>
    readJsonBody(request, { maxRequestBytes: MAX_HISTORY_REQUEST_BYTES, tooLarge: "history_request_too_large", invalid: "invalid_history_request" });
  const invalid = (message: string) => errorResponse("invalid_history_request", { message });

  const pull = forAccount("read", async (request, accountId, _params, store) => {
    const query = changesQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
    if (!query.success) return invalid(`Query ${describeIssue(query.error)}.`);
    const { page, unreadable } = await store.pull(accountId, query.data.since, query.data.limit);
    if (unreadable > 0) {
      options.logger.warn(`${LOG_PREFIX} chat history: ${unreadable} rows sealed under a secret no longer in LWC_SECRET were left out`);
    }
    return jsonResponse(page);
  });

  const push = forAccount("write", async (request, accountId, _params, store) => {
    const body = await readBody(request);
    if (!body.ok) return body.response;
    const batch = pushBody.safeParse(body.body);
    if (!batch.success) return invalid(`The request body ${describeIssue(batch.error)}.`);
    return jsonResponse(await store.push(accountId, batch.data));
  });

  const setInstructions = forAccount("instructions write", async (request, accountId, _params, store) => {
    const body = await readBody(request);
    if (!body.ok) return body.response;
    const parsed = instructionsBody.safeParse(body.body);
    if (!parsed.success) return invalid(`The request body ${describeIssue(parsed.error)}.`);
    return jsonResponse(await store.writeInstructions(accountId, parsed.data.text, parsed.data.rev));
  });

  const clear = forAccount("delete", async (_request, accountId, _params, store) => {
    const { cursor, ...deleted } = await store.clear(accountId);
    return jsonResponse({ cursor, deleted });
  });

  const listShares = forAccount("share list", async (_request, accountId, _params, store) =>
    jsonResponse({ shares: await store.listShares(accountId) }),
  );

  const createShare = forAccount("share", async (request, accountId, _params, store) => {
    const body = await readBody(request);
    if (!body.ok) return body.response;
    const parsed = shareBody.safeParse(body.body);
    if (!parsed.success) return invalid(`The request body ${describeIssue(parsed.error)}.`);
    const made = await store.createShare(accountId, parsed.data.conversationId, parsed.data.leafId);
    switch (made.kind) {
      case "created":
        return jsonResponse(made.share, { status: 201 });
      case "conversation_not_found":
        return notFound("history_not_found", "No such conversation in this account's history.");
      case "message_not_found":
        return notFound("history_not_found", "No such message in that conversation.");
      case "too_large":
        return errorResponse("share_too_large", { message: "This branch is too large to share (images count too)." });
      case "too_many":
        return errorResponse("history_quota_exceeded", { message: "This account has too many share links; revoke some first." });
    }
  });

  const revokeShare = forAccount("share revoke", async (_request, accountId, params, store) => {
    const id = historyId.safeParse(params.id);
    if (!id.success || !(await store.revokeShare(accountId, id.data))) return notFound("history_not_found", "No such share link in this account.");
    return new Response(null, { status: 204 });
  });

  const readShare: RouteHandler = async (request, params) => {
    const missing = () => errorResponse("share_not_found", { message: "This link does not exist or was revoked." }, { headers: ROBOTS_HEADER });
    if (!history) return missing();
    if (ctx.sharedLimiter) {
      const { client } = await loginLimitKeys(options.clientAddress(request));
      const limit = await ctx.sharedLimiter.limit(client);
      if (!limit.success) throw rateLimited(limit.reset, options.now());
    }
    const id = historyId.safeParse(params.id);
    if (!id.success) return missing();
    try {
      const snapshot = await history.readShare(id.data);
      return snapshot ? jsonResponse(snapshot, { headers: ROBOTS_HEADER }) : missing();
    } catch (error) {
      return unavailable(error, "share read");
    }
  };

  return [
    { pattern: "/history", methods: { DELETE: clear } },
    { pattern: "/history/changes", methods: { GET: pull, POST: push } },
    { pattern: "/history/instructions", methods: { PUT: setInstructions } },
    { pattern: "/history/shares", methods: { GET: listShares, POST: createShare } },
    { pattern: "/history/shares/:id", methods: { DELETE: revokeShare } },
    { pattern: "/shared/:id", methods: { GET: readShare } },
  ];
}

function notFound(code: ApiErrorCode, message: string): Response {
  return errorResponse(code, { message });
}

/** The error's name and code (a database's SQLSTATE or a socket's errno), never its message: it may quote values. */
function describeDatabaseError(error: unknown): string {
  if (error instanceof Error && error.name === "DataDirInUseError") return error.message;
  // Drizzle wraps a failed query; its cause is the driver's error.
  return describeErrorForLog(error instanceof Error && error.cause instanceof Error ? error.cause : error);
}
