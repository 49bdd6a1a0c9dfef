import { isProviderAuthError } from "@/lib/upstream/errors";
import { fetchModels } from "@/lib/upstream/models";
import type { ModelInfo } from "@/lib/upstream/types";
import type { ServerContext } from "./context";
import type { AuthenticatedRecord, LoadedSession } from "./session-record";
import type { SessionManager } from "./session-manager";

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

/** The slugs the account may pick; see fetchAccountModels. */
export async function fetchAccountModelSlugs(
  ctx: ServerContext,
  manager: SessionManager,
  session: LoadedSession<AuthenticatedRecord>,
): Promise<string[]> {
  return (await fetchAccountModels(ctx, manager, session)).map((model) => model.slug);
}

/**
 * The models the account may pick (listed models, priority order, full catalogue entries), with
 * tokens refreshed first and one forced refresh + retry when the backend answers 401. Throws ProviderAuthError.
 */
export async function fetchAccountModels(
  ctx: ServerContext,
  manager: SessionManager,
  session: LoadedSession<AuthenticatedRecord>,
): Promise<ModelInfo[]> {
  const list = (record: AuthenticatedRecord) =>
    fetchModels(ctx.options.upstream, {
      accessToken: record.tokens.accessToken,
      accountId: record.account.accountId,
    });

  const record = await manager.freshTokens(session);
  try {
    return await list(record);
  } catch (error) {
    if (!isUnauthorized(error)) throw error;
    return list(await manager.forceRefresh({ id: session.id, record }));
  }
}

/** In-process, per-account cache of model lists; concurrent misses share one upstream call. */
export function createAccountModelsCache(now: () => number) {
  const entries = new Map<string, { expiresAt: number; slugs: Promise<string[]> }>();

  /** Sets an entry and drops the expired ones, so the map holds only accounts seen recently. */
  function put(accountId: string, slugs: Promise<string[]>, ttlMs: number): void {
    const at = now();
    for (const [key, entry] of entries) if (entry.expiresAt <= at) entries.delete(key);
    entries.set(accountId, { expiresAt: at + ttlMs, slugs });
  }

  return {
    remember(accountId: string, slugs: string[]): void {
      put(accountId, Promise.resolve(slugs), ACCOUNT_MODELS_CACHE_MS);
    },
    get(accountId: string, load: () => Promise<string[]>): Promise<string[]> {
      const cached = entries.get(accountId);
      if (cached && cached.expiresAt > now()) return cached.slugs;
      const slugs = load();
      put(accountId, slugs, ACCOUNT_MODELS_CACHE_MS);
      slugs.catch((error: unknown) => {
        if (entries.get(accountId)?.slugs !== slugs) return;
        // A backend outage is remembered briefly; anything else (e.g. a dead login) is not cached.
        if (isBackendOutage(error)) put(accountId, slugs, FAILED_MODELS_CACHE_MS);
        else entries.delete(accountId);
      });
      return slugs;
    },
  };
}

export type AccountModelsCache = ReturnType<typeof createAccountModelsCache>;
