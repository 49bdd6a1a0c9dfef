import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "lwc-e2e-data-";

/** Whether a process with this id is running. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A fresh LWC_DATA_DIR for this run's app servers (the embedded history database), never the
 * repository's .data: each run starts with no chats kept, and a run never sees another's. Made once
 * by the runner (its workers load this config too, and get the same folder through the
 * environment). Folders of runs whose runner is gone are removed here; the folder of a run still
 * going (another checkout's, say) is left alone.
 */
export function e2eDataDir(): string {
  const given = process.env.E2E_DATA_DIR;
  if (given) return given;
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(name.slice(PREFIX.length).split("-")[0]);
    if (name.startsWith(PREFIX) && Number.isInteger(pid) && !alive(pid)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
  const made = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
  process.env.E2E_DATA_DIR = made;
  return made;
}
