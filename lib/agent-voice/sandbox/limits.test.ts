/** The pure pieces of the codex processes' limits: defaults, prlimit's arguments, and which limit ended a process. */
import { describe, expect, it } from "vitest";
import { agentLimits, exceededLimit, prlimitArgs } from "./limits";

describe("agentLimits", () => {
  it("fills each limit not given with its default", () => {
    expect(agentLimits()).toEqual({ memoryMb: 512, maxProcesses: 128, cpuSeconds: 300, homeMb: 64 });
    expect(agentLimits({ memoryMb: 256 })).toEqual({ memoryMb: 256, maxProcesses: 128, cpuSeconds: 300, homeMb: 64 });
  });
});

describe("prlimitArgs", () => {
  const limits = agentLimits({ memoryMb: 512, maxProcesses: 64, cpuSeconds: 300 });

  it("always: CPU time (SIGXCPU, then SIGKILL 5 s later) and no core file", () => {
    expect(prlimitArgs(42, limits, { memory: false, processes: false })).toEqual(["--pid", "42", "--cpu=300:305", "--core=0:0"]);
  });

  it("with rlimits: the data size in bytes; the process count only where asked", () => {
    expect(prlimitArgs(42, limits, { memory: true, processes: true })).toEqual([
      "--pid",
      "42",
      "--cpu=300:305",
      "--core=0:0",
      `--data=${512 * 1024 * 1024}:${512 * 1024 * 1024}`,
      "--nproc=64:64",
    ]);
  });
});

describe("exceededLimit", () => {
  const ended = (code: number | null, signal: NodeJS.Signals | null) => ({ code, signal });

  it("names memory for a cgroup OOM kill, whatever the exit looked like", () => {
    expect(exceededLimit(ended(137, null), "", 1)).toBe("memory");
  });

  it("names cpu for SIGXCPU, directly or as bwrap's exit code 152", () => {
    expect(exceededLimit(ended(null, "SIGXCPU"), "", 0)).toBe("cpu");
    expect(exceededLimit(ended(152, null), "", 0)).toBe("cpu");
  });

  it("names memory for an abort after Rust's allocation failure, and nothing for any other abort", () => {
    const words = "memory allocation of 268435456 bytes failed\n";
    expect(exceededLimit(ended(134, null), words, 0)).toBe("memory");
    expect(exceededLimit(ended(null, "SIGABRT"), words, 0)).toBe("memory");
    expect(exceededLimit(ended(134, null), "thread 'main' panicked", 0)).toBeUndefined();
  });

  it("names nothing for a normal exit, a kill by the server, or a plain crash", () => {
    expect(exceededLimit(ended(0, null), "", 0)).toBeUndefined();
    expect(exceededLimit(ended(null, "SIGKILL"), "", 0)).toBeUndefined();
    expect(exceededLimit(ended(1, null), "memory allocation of 1 bytes failed", 0)).toBeUndefined();
  });
});
