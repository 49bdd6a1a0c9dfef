import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { throttleLatest } from "./throttle";

describe("throttleLatest", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs once per interval with the latest value pushed", () => {
    const run = vi.fn();
    const throttled = throttleLatest(run, 1000);
    throttled.push("a");
    throttled.push("ab");
    expect(run).not.toHaveBeenCalled();
    vi.advanceTimersByTime(999);
    expect(run).not.toHaveBeenCalled();
    throttled.push("abc");
    vi.advanceTimersByTime(1);
    expect(run.mock.calls).toEqual([["abc"]]);

    throttled.push("abcd");
    vi.advanceTimersByTime(1000);
    expect(run.mock.calls).toEqual([["abc"], ["abcd"]]);
    // Nothing new pushed: nothing runs again.
    vi.advanceTimersByTime(5000);
    expect(run).toHaveBeenCalledTimes(2);
  });

  it("flush runs the pending value at once, and only once", () => {
    const run = vi.fn();
    const throttled = throttleLatest(run, 1000);
    throttled.push(1);
    throttled.flush();
    expect(run.mock.calls).toEqual([[1]]);
    vi.advanceTimersByTime(1000);
    throttled.flush();
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("cancel drops the pending value", () => {
    const run = vi.fn();
    const throttled = throttleLatest(run, 1000);
    throttled.push(1);
    throttled.cancel();
    vi.advanceTimersByTime(2000);
    throttled.flush();
    expect(run).not.toHaveBeenCalled();
  });
});
