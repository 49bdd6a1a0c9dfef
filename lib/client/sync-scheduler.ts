/**
 * When a tab syncs with the server: at once when it opens, comes back into view, gets the focus or
 * comes back online; soon after a change of its own (so the other devices get it within a second
 * or two); every few seconds while it is visible (so it gets theirs). One round at a time, at most
 * one a second; after a failure it waits longer each time (the server's `retry-after` when it says),
 * and a hidden tab does not poll.
 */

export interface SyncTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

interface SchedulerOptions {
  /** One round; throws when it failed. */
  round: () => Promise<void>;
  isVisible: () => boolean;
  /** How long a failure asks to wait (a 429's retry-after), or undefined. */
  retryAfterMs: (error: unknown) => number | undefined;
  timers: SyncTimers;
  /** Rounds while the tab is visible and nothing else asks. */
  intervalMs?: number;
}

export interface SyncScheduler {
  /**
   * Asks for a round: `change` after a write of this tab (a short pause gathers several), `now`
   * when the tab opens, shows, gets the focus or comes back online (a wait after a failure ends,
   * except one the server asked for).
   */
  request(reason: "change" | "now"): void;
  stop(): void;
}

export const POLL_INTERVAL_MS = 5000;
const CHANGE_DELAY_MS = 250;
const MIN_SPACING_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

export function createSyncScheduler({ round, isVisible, retryAfterMs, timers, intervalMs = POLL_INTERVAL_MS }: SchedulerOptions): SyncScheduler {
  let timer: unknown;
  let dueAt = Infinity;
  let running = false;
  let again = false;
  let stopped = false;
  let failures = 0;
  let lastStart = -Infinity;
  /** A wait the server asked for (429): nothing runs before it. */
  let notBefore = -Infinity;

  const backoff = () => Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (failures - 1));

  const schedule = (delay: number) => {
    if (stopped) return;
    const at = Math.max(timers.now() + delay, lastStart + MIN_SPACING_MS, notBefore);
    if (timer !== undefined && at >= dueAt) return;
    if (timer !== undefined) timers.clearTimeout(timer);
    dueAt = at;
    timer = timers.setTimeout(fire, Math.max(0, at - timers.now()));
  };

  const fire = () => {
    timer = undefined;
    dueAt = Infinity;
    if (running) {
      again = true;
      return;
    }
    running = true;
    lastStart = timers.now();
    round().then(
      () => {
        failures = 0;
        settle(undefined);
      },
      (error: unknown) => {
        failures += 1;
        settle(error);
      },
    );
  };

  const settle = (error: unknown) => {
    running = false;
    if (stopped) return;
    if (error !== undefined) {
      const asked = retryAfterMs(error);
      if (asked !== undefined) notBefore = timers.now() + asked;
      schedule(asked ?? backoff());
      return;
    }
    if (again) {
      again = false;
      schedule(0);
    } else if (isVisible()) schedule(intervalMs);
  };

  return {
    request(reason) {
      if (stopped) return;
      if (running) {
        again = true;
        return;
      }
      if (reason === "now") failures = 0;
      schedule(failures > 0 ? backoff() : reason === "change" ? CHANGE_DELAY_MS : 0);
    },
    stop() {
      stopped = true;
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = undefined;
    },
  };
}
