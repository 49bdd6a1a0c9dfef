import "server-only";
/** Validates a time to live in milliseconds and rounds it up to a whole millisecond. */
export function requirePositiveTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`ttlMs must be a finite number > 0 (got ${ttlMs})`);
  }
  return Math.ceil(ttlMs);
}
