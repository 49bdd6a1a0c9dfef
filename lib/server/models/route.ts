import "server-only";
import { API_ERRORS, type ApiErrorCode } from "@/lib/error-codes";
import { isProviderAuthError, isRefreshTokenInvalid } from "@/lib/upstream/errors";
import type { ServerContext } from "../context";
import { rateLimited } from "../http/api-error";
import { jsonResponse, passedOnCode } from "../http/json";
import type { RouteHandler } from "../http/router";
import type { SessionManager } from "../session/manager";
import { isAuthenticated } from "../session/record";
import type { ModelBackends } from "./backend";
import { backendRefusalResponse } from "./upstream-failure";

/** `/models` answers `models: []` beside every error. */
const NO_MODELS = { models: [] };

/** `{models: [], error, message}` with the code's status, or the backend's own for a failed list. */
function modelsError(error: ApiErrorCode, message: string | undefined, upstreamStatus?: number): Response {
  return jsonResponse({ models: [], error, message }, { status: upstreamStatus ?? API_ERRORS[error].status });
}

/**
 * GET /models: the account's listed model slugs it can use (only those on `allowedModels` when that
 * is set), plus `modelDetails` (an extension beside the contract's field, docs/api.md): name, reasoning efforts,
 * service tiers and input modalities per listed model, and `unavailable` for one gated above the
 * client version this server sends. Served from the per-account cache (one upstream call per
 * account and cache period), under a per-session limit of its own (as many as /responses allows).
 */
export function createModelsRoute(ctx: ServerContext, manager: SessionManager, backends: ModelBackends): RouteHandler {
  return async (request) => {
    const session = await manager.read(request);
    if (!isAuthenticated(session)) return modelsError("not_authenticated", API_ERRORS.not_authenticated.message);
    const backend = backends.backendFor(session.record);
    // A session that may not reach its backend (a SIWC one without plan usage) has no use for a catalogue.
    backend.admit(session.record, NO_MODELS);
    if (ctx.modelsLimiter) {
      const limit = await ctx.modelsLimiter.limit(session.record.loginId);
      if (!limit.success) throw rateLimited(limit.reset, ctx.options.now(), { ...NO_MODELS, message: "Too many requests for this session. Try again shortly." });
    }
    try {
      // Refreshes tokens near expiry even when the list itself comes from the cache.
      const fresh = await manager.freshTokens(session);
      // A refresh may grant less than the sign-in did: checked again on the record it left.
      backend.admit(fresh, NO_MODELS);
      const models = await backends.catalogue(session, fresh);
      // With an allow-list, only the account's models on it: anything else would answer 403 model_not_allowed.
      const { allowedModels } = ctx.options;
      const offered = allowedModels ? models.filter((model) => allowedModels.has(model.slug)) : models;
      const details = offered.map((model) => backend.describe(model, ctx.options.upstream.clientVersion));
      // `models` holds what can be used; a model gated above our client version is only described.
      const usable = details.filter((model) => !model.unavailable).map((model) => model.slug);
      return jsonResponse({ models: usable, modelDetails: details });
    } catch (error) {
      if (isRefreshTokenInvalid(error)) return modelsError("not_authenticated", API_ERRORS.not_authenticated.message);
      const refused = backendRefusalResponse(error, NO_MODELS);
      if (refused) return refused;
      if (!isProviderAuthError(error)) throw error;
      // The backend's own status for a failed models call; the code's (502) for network and refresh trouble.
      const upstreamStatus = error.code === "models_request_failed" ? error.status : undefined;
      return modelsError(passedOnCode(error.code), error.message, upstreamStatus !== undefined && upstreamStatus >= 400 ? upstreamStatus : undefined);
    }
  };
}
