/**
 * The device code's `expiresAt` is an instant on the server's clock. Comparing it with the browser's
 * `Date.now()` is wrong by however far the two clocks disagree (a browser minutes fast would count
 * a fresh code down to zero), so the countdown is computed on an estimate of the server's clock,
 * taken from the `Date` header of the server's replies. Expiry itself is never decided here: the
 * server expires codes and says so in `status`.
 */

/** `Date` has whole-second resolution (the fraction is cut off): the server's moment lies in [date, date + 1 s). */
const DATE_HEADER_RESOLUTION_MS = 1000;

/**
 * How far the server's clock is ahead of the browser's, in ms (negative: behind), from a reply's
 * `Date` header and the browser time the reply arrived. Null when the header is missing (e.g. not
 * exposed to a cross-origin caller) or unreadable.
 */
export function estimateServerClockOffset(dateHeader: string | null | undefined, receivedAt: number): number | null {
  if (!dateHeader) return null;
  const serverTime = Date.parse(dateHeader);
  if (!Number.isFinite(serverTime)) return null;
  return serverTime + DATE_HEADER_RESOLUTION_MS / 2 - receivedAt;
}

/** Whole seconds from now until `expiresAt` (server epoch ms), on the server's clock; never below 0. */
export function secondsUntilOnServerClock(expiresAt: number, browserNow: number, serverClockOffsetMs: number): number {
  return Math.max(0, Math.ceil((expiresAt - (browserNow + serverClockOffsetMs)) / 1000));
}

/**
 * Wraps a fetch so that every reply's `Date` header updates the server-clock offset (replies without
 * a usable header leave it alone). Failed replies count too: their `Date` is still the server's time.
 */
export function withServerClock(
  fetchImpl: typeof fetch,
  onOffset: (offsetMs: number) => void,
  now: () => number = Date.now,
): typeof fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    const offset = estimateServerClockOffset(response.headers.get("date"), now());
    if (offset !== null) onOffset(offset);
    return response;
  };
}

/** How long a device code lives (the server issues codes for 15 minutes; docs/api.md). */
export const DEVICE_CODE_LIFETIME_SECONDS = 15 * 60;

/**
 * The sign-in countdown: seconds left on the server's clock, never more than the code's lifetime.
 * The clock estimate is only good to half a second, so a code issued late in the `Date` header's
 * second would otherwise start at 15:01.
 */
export function deviceCodeSecondsLeft(expiresAt: number, browserNow: number, serverClockOffsetMs: number): number {
  return Math.min(DEVICE_CODE_LIFETIME_SECONDS, secondsUntilOnServerClock(expiresAt, browserNow, serverClockOffsetMs));
}
