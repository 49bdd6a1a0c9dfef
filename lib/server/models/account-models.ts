import "server-only";
import { isProviderAuthError } from "@/lib/upstream/errors";
import type { ModelInfo } from "@/lib/upstream/types";

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
