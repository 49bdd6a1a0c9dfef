import { isProviderAuthError, isRefreshTokenInvalid } from "@/lib/upstream/errors";
import { toModelDetails } from "@/lib/upstream/models";
import { fetchAccountModels, type AccountModelsCache } from "../account-models";
import type { ServerContext } from "../context";
import { jsonResponse } from "../json";
import type { RouteHandler } from "../router";
import { isAuthenticated } from "../session-record";
import type { SessionManager } from "../session-manager";

export const NOT_AUTHENTICATED_MESSAGE = "Sign in first: this request has no authenticated session.";

function modelsError(status: number, error: string, message: string): Response {
  return jsonResponse({ models: [], error, message }, { status });
}

/**
 * GET /models: the account's listed model slugs, plus `modelDetails` (an extension beside the
 * contract's field): name, reasoning efforts, service tiers and input modalities per slug.
 */
export function createModelsRoute(ctx: ServerContext, manager: SessionManager, cache: AccountModelsCache): RouteHandler {
  return async (request) => {
    const session = await manager.read(request);
    if (!isAuthenticated(session)) return modelsError(401, "not_authenticated", NOT_AUTHENTICATED_MESSAGE);
    try {
      const models = await fetchAccountModels(ctx, manager, session);
      const slugs = models.map((model) => model.slug);
      cache.remember(session.record.account.accountId, slugs);
      return jsonResponse({ models: slugs, modelDetails: models.map(toModelDetails) });
    } catch (error) {
      if (isRefreshTokenInvalid(error)) return modelsError(401, "not_authenticated", NOT_AUTHENTICATED_MESSAGE);
      if (!isProviderAuthError(error)) throw error;
      // The backend's own status for a failed models call; 502 for network and refresh trouble.
      const upstreamStatus = error.code === "models_request_failed" ? error.status : undefined;
      const status = upstreamStatus !== undefined && upstreamStatus >= 400 ? upstreamStatus : 502;
      return modelsError(status, error.code, error.message);
    }
  };
}
