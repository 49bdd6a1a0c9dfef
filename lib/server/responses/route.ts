import "server-only";
import type { HistoryStore } from "@/lib/history/store";
import { describeErrorForLog, LOG_PREFIX } from "@/lib/logger";
import { hasWebSearchTool } from "@/lib/upstream/responses";
import type { ModelInfo } from "@/lib/upstream/types";
import type { ServerContext } from "../context";
import { ApiError, errorResponse, rateLimited } from "../http/api-error";
import type { RouteHandler } from "../http/router";
import type { ModelBackends, ResponsesSettings } from "../models/backend";
import { preflightFailure } from "../models/upstream-failure";
import { capabilitiesOf, requireCapability } from "../session/capabilities";
import type { SessionManager } from "../session/manager";
import { isAuthenticated, type AuthenticatedRecord, type LoadedSession } from "../session/record";
import { readResponsesBody } from "./body";
import { withPersonInstructions } from "../history/person-instructions";
import { withEffortForModel } from "./effort-for-model";
import { readProxyHeaders } from "./headers";

/** Whether the body asks for a generated picture (an `image_generation` tool). */
function asksForPictures(body: Record<string, unknown>): boolean {
  return Array.isArray(body.tools) && body.tools.some((tool) => (tool as { type?: unknown } | null)?.type === "image_generation");
}

/**
 * POST /responses. Checks, in order: session (401), that the session may reach its model backend
 * (a SIWC one: SIWC on and plan usage granted, 403), headers (400), body size (413), body shape
 * (400), web search turned off (403), pictures for a session that may not make them (403
 * `not_available_with_siwc`), the fields its backend refuses (400 `unsupported_field`), the session
 * its backend goes with (a SIWC one refreshed near expiry and checked again, 403); allowed model
 * (403), per-session rate limit (429); then refresh if near expiry, and the session's model
 * backend (lib/server/models/backend.ts) makes the call: ChatGPT's for a device-code login (its
 * dialects and retries), the SIWC API for a SIWC session (no retries).
 */
/** How long a model call waits for the history database to give the person's instructions. */
const INSTRUCTIONS_WAIT_MS = 2_000;

export function createResponsesRoute(
  ctx: ServerContext,
  manager: SessionManager,
  backends: ModelBackends,
  history?: HistoryStore,
): RouteHandler {
  const { options } = ctx;

  /**
   * The person's own instructions below the server's (docs/history.md), when history is on. Read
   * from the store's per-account cache; a database that cannot be reached, or is still opening
   * (an embedded one on a busy machine, another instance's migration), costs the call at most
   * INSTRUCTIONS_WAIT_MS.
   */
  async function withPersonsOwn<B extends Record<string, unknown>>(body: B, record: AuthenticatedRecord): Promise<B> {
    if (!history) return body;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`not ready within ${INSTRUCTIONS_WAIT_MS} ms`)), INSTRUCTIONS_WAIT_MS);
    });
    try {
      return withPersonInstructions(body, await Promise.race([history.instructionsFor(record.account.accountId), waited]));
    } catch (error) {
      options.logger.warn(`${LOG_PREFIX} chat history: the person's instructions could not be read (${describeErrorForLog(error)}); sent without them`);
      return body;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The model's catalogue entry when the account lists it (undefined: not listed). With an
   * allow-list the model is allowed by it alone: `allowed` answers, and the entry is read for the
   * dialect only, when the catalogue can be had.
   */
  async function modelEntry(session: LoadedSession<AuthenticatedRecord>, model: string): Promise<{ allowed: boolean; entry?: ModelInfo }> {
    const find = (models: ModelInfo[]) => models.find((listed) => listed.slug === model);
    if (!options.allowedModels) {
      const entry = find(await backends.catalogue(session));
      return { allowed: entry !== undefined, entry };
    }
    if (!options.allowedModels.has(model)) return { allowed: false };
    try {
      return { allowed: true, entry: find(await backends.catalogue(session)) };
    } catch {
      return { allowed: true };
    }
  }

  return async (request) => {
    const session = await manager.read(request);
    if (!isAuthenticated(session)) throw new ApiError("not_authenticated");
    const backend = backends.backendFor(session.record);
    // Before anything is read or asked upstream.
    backend.admit(session.record);
    const headers = readProxyHeaders(request);
    const body = await readResponsesBody(request, options.maxRequestBytes);
    if (!body.ok) return body.response;
    const original = body.body;
    const model = original.model;
    if (!options.webSearch && hasWebSearchTool(original)) throw new ApiError("web_search_disabled");
    if (!capabilitiesOf(session.record).pictures && asksForPictures(original)) requireCapability(session.record, "pictures");
    const settings: ResponsesSettings = {
      ...(headers.serviceTier ? { serviceTier: headers.serviceTier } : {}),
      ...(headers.reasoningEffort ? { reasoningEffort: headers.reasoningEffort } : {}),
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
      instructionsMode: options.instructionsMode,
    };
    const prepared = backend.prepare(original, settings);

    let current: LoadedSession<AuthenticatedRecord>;
    let entry: ModelInfo | undefined;
    try {
      current = await backend.ready(session);
      const listed = await modelEntry(current, model);
      if (!listed.allowed) return errorResponse("model_not_allowed", { model });
      entry = listed.entry;
    } catch (error) {
      return preflightFailure(error);
    }

    if (ctx.responsesLimiter) {
      const limit = await ctx.responsesLimiter.limit(session.record.loginId);
      if (!limit.success) throw rateLimited(limit.reset, options.now());
    }

    let record: AuthenticatedRecord;
    try {
      record = await manager.freshTokens(current);
    } catch (error) {
      return preflightFailure(error);
    }
    const payload = await withPersonsOwn(await withEffortForModel(prepared, () => backends.catalogue(current)), record);
    return backend.respond({ request, session: current, record, payload, original, entry });
  };
}
