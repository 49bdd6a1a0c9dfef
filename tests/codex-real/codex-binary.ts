import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The pinned codex executable, installed into the cache folder first when missing. */
export function codexExecutable(): string {
  return execFileSync("bash", [`${root}scripts/ensure-codex.sh`], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
}

/** True while a process with this pid exists. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
