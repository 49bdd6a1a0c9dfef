/** The watch of a live codex process's sandbox: when a usage is at its limit, and the watch's own life. */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { limitReached, readSandboxUsage, watchLimits, DATA_MARGIN_BYTES, type SandboxUsage } from "./limit-watch";
import { agentLimits, MIB } from "./limits";

const limits = agentLimits({ memoryMb: 512, maxProcesses: 64, homeMb: 4 });
const idle: SandboxUsage = { tasks: 35, dataHeadroomBytes: (512 - 240) * MIB, homeUsedBytes: 1 * MIB };

describe("limitReached", () => {
  it("nothing while every usage is under its cap (an idle codex sandbox, as measured)", () => {
    expect(limitReached(idle, limits)).toBeUndefined();
  });

  it("processes at the cap itself: the kernel refuses the next fork, so reaching it is the limit", () => {
    expect(limitReached({ ...idle, tasks: 63 }, limits)).toBeUndefined();
    expect(limitReached({ ...idle, tasks: 64 }, limits)).toBe("processes");
    expect(limitReached({ ...idle, tasks: 500 }, limits)).toBe("processes");
  });

  it("the home within one page of its size: tmpfs refused the write that would pass it", () => {
    expect(limitReached({ ...idle, homeUsedBytes: 4 * MIB - 4096 - 1 }, limits)).toBeUndefined();
    expect(limitReached({ ...idle, homeUsedBytes: 4 * MIB - 4096 }, limits)).toBe("home");
    expect(limitReached({ ...idle, homeUsedBytes: 4 * MIB }, limits)).toBe("home");
  });

  it("no home of its own (unsandboxed): never the home limit", () => {
    expect(limitReached({ ...idle, homeUsedBytes: undefined }, limits)).toBeUndefined();
  });

  it("memory within the margin of RLIMIT_DATA: a refused allocation leaves VmData that far below it", () => {
    expect(limitReached({ ...idle, dataHeadroomBytes: DATA_MARGIN_BYTES + 1 }, limits)).toBeUndefined();
    expect(limitReached({ ...idle, dataHeadroomBytes: DATA_MARGIN_BYTES }, limits)).toBe("memory");
    expect(limitReached({ ...idle, dataHeadroomBytes: 0 }, limits)).toBe("memory");
  });

  it("no data rlimit (a cgroup holds memory, and kills at it): never the memory limit from here", () => {
    expect(limitReached({ ...idle, dataHeadroomBytes: undefined }, limits)).toBeUndefined();
  });

  it("processes first when several are reached", () => {
    expect(limitReached({ tasks: 64, dataHeadroomBytes: 0, homeUsedBytes: 4 * MIB }, limits)).toBe("processes");
  });
});

describe("watchLimits", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("reads every interval, calls onReached once with the limit reached, then reads no more and leaves no timer", () => {
    vi.useFakeTimers();
    const usages: SandboxUsage[] = [idle, idle, { ...idle, homeUsedBytes: 4 * MIB }, { ...idle, tasks: 64 }];
    const read = vi.fn<(root: number, homeDir: string) => SandboxUsage>(() => usages.shift() ?? idle);
    const onReached = vi.fn();
    const stop = watchLimits({ root: 42, homeDir: "/tmp/lwc-codex-x", limits, onReached, intervalMs: 1_000, read });
    vi.advanceTimersByTime(2_000);
    expect(onReached).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_000);
    expect(onReached.mock.calls).toEqual([["home"]]);
    expect(read).toHaveBeenCalledWith(42, "/tmp/lwc-codex-x");
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5_000);
    expect(read).toHaveBeenCalledTimes(3);
    stop();
  });

  it("stop ends the watch: no timer left, no read after it", () => {
    vi.useFakeTimers();
    const read = vi.fn(() => idle);
    const stop = watchLimits({ root: 42, homeDir: "/tmp/h", limits, onReached: () => undefined, read });
    expect(vi.getTimerCount()).toBe(1);
    stop();
    stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000);
    expect(read).not.toHaveBeenCalled();
  });
});

describe("readSandboxUsage", () => {
  it("the room a process has left under its RLIMIT_DATA (set with prlimit, as the limiter does)", async () => {
    const child = spawn("prlimit", [`--data=${64 * MIB}:${64 * MIB}`, "--", "sleep", "30"], { stdio: "ignore" });
    await new Promise((resolve) => child.once("spawn", resolve));
    try {
      // prlimit execs sleep: the same pid, now under the limit.
      await expect.poll(() => readFileSync(`/proc/${child.pid}/comm`, "utf8").trim()).toBe("sleep");
      const headroom = readSandboxUsage(child.pid!, tmpdir()).dataHeadroomBytes!;
      expect(headroom).toBeLessThan(64 * MIB);
      expect(headroom).toBeGreaterThan(56 * MIB);
    } finally {
      process.kill(child.pid!, "SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  });

  it("counts the tasks of a process and everything it started; no home of its own in the server's mount namespace", async () => {
    const before = readSandboxUsage(process.pid, tmpdir());
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    await new Promise((resolve) => child.once("spawn", resolve));
    try {
      const during = readSandboxUsage(process.pid, tmpdir());
      expect(during.tasks).toBeGreaterThanOrEqual(before.tasks + 1);
      expect(during.homeUsedBytes).toBeUndefined();
    } finally {
      process.kill(child.pid!, "SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  });
});
