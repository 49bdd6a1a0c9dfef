/**
 * Fixed rate-limit windows start at multiples of the window length on the wall clock, so a burst
 * that straddles a boundary is counted in two windows. For tests that run real servers (whose
 * clocks cannot be moved), this resolves once the current window has at least `neededMs` left,
 * waiting for the next window to begin when it has not.
 */
export async function untilWindowHasRoom(windowMs: number, neededMs: number): Promise<void> {
  const leftMs = windowMs - (Date.now() % windowMs);
  if (leftMs >= neededMs) return;
  await new Promise((resolve) => setTimeout(resolve, leftMs + 10));
}
