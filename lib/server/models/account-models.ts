import "server-only";
import { isProviderAuthError } from "@/lib/upstream/errors";
import { fetchModels } from "@/lib/upstream/models";
import { fetchSiwcModels } from "@/lib/upstream/siwc-models";
import type { ModelInfo } from "@/lib/upstream/types";
import type { ServerContext } from "../context";
import { LOG_PREFIX } from "@/lib/logger";
import { describeProviderErrorForLog } from "../http/upstream-log";
import type { AuthenticatedRecord, LoadedSession } from "../session/record";
import type { SessionManager } from "../session/manager";

/** How long an account's model list is trusted for the /responses allow-list check. */
export const ACCOUNT_MODELS_CACHE_MS = 5 * 60_000;
/**
 * How long a failed model-list call (backend down or unreachable) is remembered: the allow-list
 * check runs before the rate limit, so without this every /responses would call upstream again.
 */
export const FAILED_MODELS_CACHE_MS = 10_000;

function isBackendOutage(error: unknown): boolean {
  return isProviderAuthError(error) && (error.code === "models_request_failed" || error.code === "network_error");
}

function isUnauthorized(error: unknown): boolean {
  return isProviderAuthError(error) && error.status === 401;
}

/**
 * The cache key of a session's model list: the account id, apart for a Sign in with ChatGPT session
 * (its account id is the ID token's `sub`, and its catalogue is another service's).
 */
export function modelsCacheKey(record: AuthenticatedRecord): string {
  return record.siwc ? `siwc:${record.account.accountId}` : record.account.accountId;
}

/**
 * The models the account may pick (listed models, priority order, full catalogue entries), with
 * tokens refreshed first (unless the caller just did: `refreshed`) and one forced refresh + retry
 * when the backend answers 401. Throws ProviderAuthError.
 */
export async function fetchAccountModels(
  ctx: ServerContext,
  manager: SessionManager,
  session: LoadedSession<AuthenticatedRecord>,
  refreshed?: AuthenticatedRecord,
): Promise<ModelInfo[]> {
  /** One upstream call; a failure is logged here, once per call (cached replies are not logged again). */
  const list = async (record: AuthenticatedRecord, retryOn401: boolean) => {
    try {
      // A SIWC session's catalogue: {apiBase}/models with the bearer token only (the routes check
      // beforehand that SIWC is on and plan usage granted).
      const siwcApiBase = record.siwc ? ctx.options.signIn.siwc?.apiBase : undefined;
      if (record.siwc && siwcApiBase === undefined) throw new Error("a SIWC session's models were asked for with SIWC off");
      if (siwcApiBase !== undefined) return await fetchSiwcModels(ctx.options.upstream, siwcApiBase, record.tokens.accessToken);
      return await fetchModels(ctx.options.upstream, {
        accessToken: record.tokens.accessToken,
        accountId: record.account.accountId,
      });
    } catch (error) {
      if (isProviderAuthError(error) && !(retryOn401 && isUnauthorized(error))) {
        ctx.options.logger.error(`${LOG_PREFIX} upstream /models failed: ${describeProviderErrorForLog(error)}`);
      }
      throw error;
    }
  };

  const record = refreshed ?? (await manager.freshTokens(session));
  // A SIWC 401 is not read as an expired token (the spec: check the account and scopes): no forced refresh.
  if (record.siwc) return list(record, false);
  try {
    return await list(record, true);
  } catch (error) {
    if (!isUnauthorized(error)) throw error;
    return list(await manager.forceRefresh({ id: session.id, record }), false);
  }
}

/**
 * In-process, per-account cache of model lists (the full catalogue entries in production; any list
 * in tests); concurrent misses share one upstream call.
 */
export function createAccountModelsCache<T = ModelInfo[]>(now: () => number) {
  const entries = new Map<string, { expiresAt: number; models: Promise<T> }>();

  /** Sets an entry and drops the expired ones, so the map holds only accounts seen recently. */
  function put(accountId: string, models: Promise<T>, ttlMs: number): void {
    const at = now();
    for (const [key, entry] of entries) if (entry.expiresAt <= at) entries.delete(key);
    entries.set(accountId, { expiresAt: at + ttlMs, models });
  }

  return {
    get(accountId: string, load: () => Promise<T>): Promise<T> {
      const cached = entries.get(accountId);
      if (cached && cached.expiresAt > now()) return cached.models;
      const models = load();
      put(accountId, models, ACCOUNT_MODELS_CACHE_MS);
      models.catch((error: unknown) => {
        if (entries.get(accountId)?.models !== models) return;
        // A backend outage is remembered briefly; anything else (e.g. a dead login) is not cached.
        if (isBackendOutage(error)) put(accountId, models, FAILED_MODELS_CACHE_MS);
        else entries.delete(accountId);
      });
      return models;
    },
    /** Drops an entry: the next call loads the list again (after the backend refused a listed model). */
    forget(accountId: string): void {
      entries.delete(accountId);
    },
  };
}

export type AccountModelsCache = ReturnType<typeof createAccountModelsCache<ModelInfo[]>>;

/** The account's listed models (full catalogue entries) through the cache. */
export function cachedAccountModels(
  ctx: ServerContext,
  manager: SessionManager,
  cache: AccountModelsCache,
  session: LoadedSession<AuthenticatedRecord>,
): Promise<ModelInfo[]> {
  return cache.get(modelsCacheKey(session.record), () => fetchAccountModels(ctx, manager, session));
}

/** The account's model slugs through the cache: what /responses and the realtime routes allow. */
export async function cachedAccountModelSlugs(
  ctx: ServerContext,
  manager: SessionManager,
  cache: AccountModelsCache,
  session: LoadedSession<AuthenticatedRecord>,
): Promise<string[]> {
  return (await cachedAccountModels(ctx, manager, cache, session)).map((model) => model.slug);
}
