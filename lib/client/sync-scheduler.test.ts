import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createSyncScheduler, POLL_INTERVAL_MS, type SyncTimers } from "./sync-scheduler";

const timers: SyncTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A scheduler whose rounds are recorded (by the fake clock's time) and can be made to fail. */
function setUp(options: { visible?: boolean; fail?: () => unknown } = {}) {
  const starts: number[] = [];
  let visible = options.visible ?? true;
  const scheduler = createSyncScheduler({
    round: async () => {
      starts.push(Date.now());
      const failure = options.fail?.();
      if (failure !== undefined) throw failure;
    },
    isVisible: () => visible,
    retryAfterMs: (error) => ((error as { retryAfterMs?: number }).retryAfterMs),
    timers,
  });
  return { starts, scheduler, hide: () => (visible = false) };
}

describe("when a tab syncs", () => {
  it("syncs at once when asked, then every few seconds while visible", async () => {
    const { starts, scheduler } = setUp();
    const t0 = Date.now();
    scheduler.request("now");
    await vi.advanceTimersByTimeAsync(0);
    expect(starts).toEqual([t0]);
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(starts).toEqual([t0, t0 + POLL_INTERVAL_MS, t0 + 2 * POLL_INTERVAL_MS]);
    scheduler.stop();
  });

  it("a hidden tab does not poll, but still sends its own changes", async () => {
    const { starts, scheduler, hide } = setUp();
    hide();
    scheduler.request("now");
    await vi.advanceTimersByTimeAsync(3 * POLL_INTERVAL_MS);
    expect(starts).toHaveLength(1);
    scheduler.request("change");
    await vi.advanceTimersByTimeAsync(1000);
    expect(starts).toHaveLength(2);
    scheduler.stop();
  });

  it("gathers several changes into one round, at most one round a second", async () => {
    const { starts, scheduler } = setUp();
    scheduler.request("now");
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 5; i++) scheduler.request("change");
    await vi.advanceTimersByTimeAsync(999);
    expect(starts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(starts).toHaveLength(2);
    expect(starts[1]! - starts[0]!).toBe(1000);
    scheduler.stop();
  });

  it("waits longer after each failure, and the server's retry-after when it says", async () => {
    let failing: unknown = new Error("offline");
    const { starts, scheduler } = setUp({ fail: () => failing });
    const t0 = Date.now();
    scheduler.request("now");
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(1000);
    await vi.advanceTimersByTimeAsync(2000);
    expect(starts.map((start) => start - t0)).toEqual([0, 1000, 3000]);
    // A change does not cut the wait short.
    scheduler.request("change");
    await vi.advanceTimersByTimeAsync(3999);
    expect(starts).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(starts).toHaveLength(4);
    failing = { retryAfterMs: 20_000 };
    await vi.advanceTimersByTimeAsync(8000);
    expect(starts).toHaveLength(5);
    // Coming back online asks at once, but never before the server's retry-after.
    scheduler.request("now");
    await vi.advanceTimersByTimeAsync(19_999);
    expect(starts).toHaveLength(5);
    failing = undefined;
    await vi.advanceTimersByTimeAsync(1);
    expect(starts).toHaveLength(6);
    scheduler.stop();
  });

  it("stops for good", async () => {
    const { starts, scheduler } = setUp();
    scheduler.stop();
    scheduler.request("now");
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 3);
    expect(starts).toEqual([]);
  });
});
