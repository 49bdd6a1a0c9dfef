import "server-only";

/**
 * Next.js wraps the global fetch for its data cache. Upstream calls carry one user's credentials
 * and must never be cached, and the wrapper costs about 2.5 ms per call on the streaming hot path,
 * so they go through the original fetch (looked up per call: Next patches after modules load).
 */
export const uncachedFetch: typeof fetch = (input, init) => {
  const current = globalThis.fetch as typeof fetch & { _nextOriginalFetch?: typeof fetch };
  return (current._nextOriginalFetch ?? current)(input, init);
};
