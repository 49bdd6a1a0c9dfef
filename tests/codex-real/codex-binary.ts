import { realpathSync } from "node:fs";
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
