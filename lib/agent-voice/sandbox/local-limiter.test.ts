/**
 * Where the limits come from on this host: the cgroup v2 facts read from /proc (parsed here from
 * real-looking text), and the limiter's own probe on this machine, with a real prlimit.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentGroupParent, cgroupV2Mount, cgroupV2Path, createLocalLimiter } from "./local-limiter";

describe("the cgroup v2 facts", () => {
  it("reads the group from /proc/self/cgroup: the 0:: line, absent on a v1-only host", () => {
    expect(cgroupV2Path("0::/system.slice/app.service\n")).toBe("/system.slice/app.service");
    expect(cgroupV2Path("12:pids:/\n4:memory:/process_api/x\n0::/\n")).toBe("/");
    expect(cgroupV2Path("12:pids:/\n4:memory:/process_api/x\n")).toBeUndefined();
  });

  it("finds the cgroup2 mount of the hierarchy's root in /proc/self/mountinfo", () => {
    const mountinfo = [
      "25 30 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw",
      "31 25 0:26 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw,nsdelegate",
      "40 25 0:27 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory",
    ].join("\n");
    expect(cgroupV2Mount(mountinfo)).toBe("/sys/fs/cgroup/unified");
    // A bind of a sub-group (not the root) does not tell where the process's group is.
    expect(cgroupV2Mount("31 25 0:26 /user.slice /mnt/cg rw - cgroup2 cgroup2 rw")).toBeUndefined();
    expect(cgroupV2Mount("25 30 0:22 / /sys rw - sysfs sysfs rw")).toBeUndefined();
  });
});

describe("where the codex processes' groups may go", () => {
  it("the root group, which may hold processes and groups at once", () => {
    expect(agentGroupParent("/", [])).toBe("/");
  });

  it("the parent of the server's group when it holds nothing else (a subtree delegated to the server, which runs in a leaf of it)", () => {
    expect(agentGroupParent("/system.slice/app.service/app", ["app"])).toBe("/system.slice/app.service");
    expect(agentGroupParent("/system.slice/app.service/app", ["app", "lwc-agent-3f2a9c", "lwc-agent-probe-12"])).toBe("/system.slice/app.service");
  });

  it("never a group shared with anything else: a slice of other services, a session's scope", () => {
    expect(agentGroupParent("/system.slice/app.service", ["app.service", "ssh.service", "cron.service"])).toBeUndefined();
    expect(agentGroupParent("/user.slice/user-0.slice/session-3.scope", ["session-3.scope", "user@0.service"])).toBeUndefined();
  });
});

describe("the limiter on this host", () => {
  it("is available with prlimit, and says which mechanism holds: cgroup only where the v2 hierarchy has memory and pids", async () => {
    const status = await createLocalLimiter().status();
    expect(status).toMatchObject({ available: true, mechanism: expect.stringMatching(/^(cgroup|rlimit)$/) });
    const group = cgroupV2Path(readFileSync("/proc/self/cgroup", "utf8"));
    const mount = cgroupV2Mount(readFileSync("/proc/self/mountinfo", "utf8"));
    const controllers = group !== undefined && mount !== undefined ? readFileSync(join(mount, group, "cgroup.controllers"), "utf8") : "";
    if (!/\bmemory\b/.test(controllers) || !/\bpids\b/.test(controllers)) expect(status).toEqual({ available: true, mechanism: "rlimit" });
  });

  it("is unavailable without prlimit, with the fix to apply", async () => {
    const status = await createLocalLimiter({ prlimitPath: "/nonexistent/prlimit" }).status();
    expect(status).toEqual({ available: false, reason: "prlimit was not found (/nonexistent/prlimit)", fix: expect.stringContaining("util-linux") });
  });
});
