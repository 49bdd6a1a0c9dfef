import { isProviderAuthError } from "@/lib/upstream/errors";
import { fetchModels } from "@/lib/upstream/models";
import type { ServerContext } from "./context";
import type { AuthenticatedRecord, LoadedSession } from "./session-record";
import type { SessionManager } from "./session-manager";

/** How long an account's model list is trusted for the /responses allow-list check. */
export const ACCOUNT_MODELS_CACHE_MS = 5 * 60_000;

function isUnauthorized(error: unknown): boolean {
  return isProviderAuthError(error) && error.status === 401;
}

/**
 * The slugs the account may pick (listed models, priority order), with tokens refreshed first and
 * one forced refresh + retry when the backend answers 401. Throws ProviderAuthError.
 */
export async function fetchAccountModelSlugs(
  ctx: ServerContext,
  manager: SessionManager,
  session: LoadedSession<AuthenticatedRecord>,
): Promise<string[]> {
  const list = async (record: AuthenticatedRecord) =>
    (await fetchModels(ctx.options.upstream, {
      accessToken: record.tokens.accessToken,
      accountId: record.account.accountId,
    })).map((model) => model.slug);

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

  return {
    remember(accountId: string, slugs: string[]): void {
      entries.set(accountId, { expiresAt: now() + ACCOUNT_MODELS_CACHE_MS, slugs: Promise.resolve(slugs) });
    },
    get(accountId: string, load: () => Promise<string[]>): Promise<string[]> {
      const cached = entries.get(accountId);
      if (cached && cached.expiresAt > now()) return cached.slugs;
      const slugs = load();
      entries.set(accountId, { expiresAt: now() + ACCOUNT_MODELS_CACHE_MS, slugs });
      // A failed load is not cached.
      slugs.catch(() => {
        if (entries.get(accountId)?.slugs === slugs) entries.delete(accountId);
      });
      return slugs;
    },
  };
}

export type AccountModelsCache = ReturnType<typeof createAccountModelsCache>;
