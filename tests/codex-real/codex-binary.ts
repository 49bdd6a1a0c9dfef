import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The pinned codex executable, installed into the cache folder first when missing. */
export function codexExecutable(): string {
  return execFileSync("bash", [`${root}scripts/ensure-codex.sh`], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
}

/** True while any process of this process group (the launcher or the native binary) exists. */
export function processGroupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
