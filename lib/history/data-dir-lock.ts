import "server-only";
/**
 * PGlite is one process's database: two processes opening the same data folder both write to it
 * and corrupt it, and PGlite itself does not stop the second (tried: both opened and wrote). So
 * the embedded engine holds a lock file beside its data, and a second process fails at once,
 * saying which process holds it and what to do instead.
 *
 * The lock names its holder (pid, host) and the holder touches it every 10 s. It is stale, and
 * taken over, when its process is gone (same host, pid not running) or when nobody touched it for
 * 30 s (another host or container sharing the folder, or a pid that was reused).
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from "node:fs";
import { hostname } from "node:os";

const HEARTBEAT_MS = 10_000;
const STALE_AFTER_MS = 30_000;

interface LockOwner {
  pid: number;
  host: string;
}

interface DataDirLock {
  release(): void;
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(path, "utf8")) as Partial<LockOwner>;
    return typeof owner.pid === "number" && typeof owner.host === "string" ? { pid: owner.pid, host: owner.host } : undefined;
  } catch {
    return undefined;
  }
}

function isStale(path: string, owner: LockOwner | undefined): boolean {
  if (owner === undefined) return true;
  if (owner.host === hostname() && (owner.pid === process.pid || !processRuns(owner.pid))) return true;
  try {
    return Date.now() - statSync(path).mtimeMs > STALE_AFTER_MS;
  } catch {
    return true;
  }
}

/** Thrown when another live process holds the folder; its message says what to do. */
class DataDirInUseError extends Error {
  constructor(dataDir: string, owner: LockOwner | undefined) {
    const who = owner ? `process ${owner.pid} on ${owner.host}` : "another process";
    super(
      `The embedded history database in ${dataDir} is in use by ${who}. The embedded engine (PGlite) serves one ` +
        "process: stop that process, give this one its own LWC_DATA_DIR, or share a Postgres (DATABASE_URL) between them.",
    );
    this.name = "DataDirInUseError";
  }
}

/** Takes `<dataDir>/<name>` for this process, or throws DataDirInUseError. */
export function lockDataDir(dataDir: string, path: string): DataDirLock {
  const me: LockOwner = { pid: process.pid, host: hostname() };
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = readOwner(path);
      if (!isStale(path, owner)) throw new DataDirInUseError(dataDir, owner);
      unlinkSync(path);
      continue;
    }
    writeSync(fd, JSON.stringify(me));
    closeSync(fd);
    const heartbeat = setInterval(() => {
      const now = new Date();
      try {
        utimesSync(path, now, now);
      } catch {
        // The folder went away; the next open finds no lock and takes it.
      }
    }, HEARTBEAT_MS);
    heartbeat.unref();
    const release = () => {
      clearInterval(heartbeat);
      process.off("exit", release);
      const owner = readOwner(path);
      if (owner?.pid === me.pid && owner.host === me.host) unlinkSync(path);
    };
    process.on("exit", release);
    return { release };
  }
  throw new DataDirInUseError(dataDir, readOwner(path));
}
