import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname } from "node:path";

export { codexExecutable } from "@/test-support/fake-app-server/protocol-schema";

/** True while any process of this process group (the launcher or the native binary) exists. */
export function processGroupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The process group of a running process (field 5 of /proc/<pid>/stat). */
export function processGroupOf(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[2]);
}

/** The processes of group `pgid` now, with their command lines: a sandbox's bwrap, egress relay, codex launcher and binary. */
export function processGroupMembers(pgid: number): { pid: number; cmdline: string }[] {
  const members: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (processGroupOf(Number(entry)) === pgid) members.push({ pid: Number(entry), cmdline: readFileSync(`/proc/${entry}/cmdline`, "utf8") });
    } catch {
      // Gone while we looked.
    }
  }
  return members;
}

/**
 * What the agent sandbox must show read-only (LWC_AGENT_SANDBOX_READONLY_PATHS) when the tests run
 * codex through a wrapper script: the wrapper execs `codexPath` by path, so the sandbox cannot see
 * it from the wrapper alone. That is codex's package tree (`node_modules/.bin/codex` links into it),
 * the program its launcher's `#!/usr/bin/env node` line names, and node, which env runs.
 */
export function codexReadOnlyPaths(codexPath: string): string[] {
  const launcher = realpathSync(codexPath);
  for (let folder = dirname(launcher); folder !== "/"; folder = dirname(folder)) {
    if (folder.endsWith("/node_modules")) return [folder, "/usr/bin/env", process.execPath];
  }
  throw new Error(`${launcher} is not inside a node_modules folder`);
}
