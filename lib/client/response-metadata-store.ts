import { readServiceTierFallback, readUsageHeaders, type UsageSnapshot } from "./usage-headers";

/** What the UI learns from the headers of /responses replies. */
export interface ResponseMetadata {
  /** The latest usage windows seen (kept when a later reply carries none, e.g. an error). */
  usage?: UsageSnapshot;
  /** Set when the latest reply says the fast tier was refused and the proxy retried without it. */
  serviceTierFallback?: string;
  /** Increases with every recorded reply, so subscribers can tell replies apart. */
  replyCount: number;
}

/** A tiny external store (for useSyncExternalStore) fed by the provider's fetch wrapper. */
export interface ResponseMetadataStore {
  subscribe(listener: () => void): () => void;
  getSnapshot(): ResponseMetadata;
  record(headers: Headers): void;
  /** Forgets the fallback notice (e.g. when the user starts a new chat). */
  clearFallback(): void;
}

const EMPTY: ResponseMetadata = { replyCount: 0 };

export function createResponseMetadataStore(): ResponseMetadataStore {
  let snapshot = EMPTY;
  const listeners = new Set<() => void>();
  const publish = (next: ResponseMetadata) => {
    snapshot = next;
    for (const listener of listeners) listener();
  };
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getSnapshot: () => snapshot,
    record(headers) {
      publish({
        usage: readUsageHeaders(headers) ?? snapshot.usage,
        serviceTierFallback: readServiceTierFallback(headers),
        replyCount: snapshot.replyCount + 1,
      });
    },
    clearFallback() {
      if (snapshot.serviceTierFallback !== undefined) publish({ ...snapshot, serviceTierFallback: undefined });
    },
  };
}

/** Server snapshot for useSyncExternalStore: nothing is known before the first reply. */
export function emptyResponseMetadata(): ResponseMetadata {
  return EMPTY;
}
