import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port";

export interface RedisServerOptions {
  /**
   * Keep the data across stop()/start(), as a production Redis does: an append-only file
   * fsynced on every write, in a temporary folder removed at the final stop.
   */
  persistent?: boolean;
}

export interface RedisServer {
  port: number;
  /** redis://127.0.0.1:<port> */
  url: string;
  /** Kills the server (SIGTERM, then SIGKILL after 5 s) and awaits its exit. Idempotent. */
  stop(): Promise<void>;
  /** Starts it again on the same port. Without persistence the data is gone: this is a fresh Redis. */
  start(): Promise<void>;
  /** Stops it for good and removes its data folder. */
  dispose(): Promise<void>;
}

const READY_LINE = "Ready to accept connections";
const START_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 5_000;
/** A restart on the old port waits 100, 200, 400, 800 ms between tries: at most 1.5 s in all. */
const RESTART_ATTEMPTS = 5;
const RESTART_FIRST_BACKOFF_MS = 100;

const isPortTaken = (error: unknown) => error instanceof Error && /Address already in use/i.test(error.message);

function persistenceArgs(dataDir: string | undefined): string[] {
  if (!dataDir) return ["--save", "", "--appendonly", "no"];
  return ["--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", dataDir];
}

function spawnRedis(port: number, dataDir?: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", ...persistenceArgs(dataDir), "--loglevel", "notice"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    let ready = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`redis-server on port ${port} was not ready within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    function fail(error: Error) {
      clearTimeout(timer);
      reject(error);
    }
    // Keep reading after the ready line too: a full pipe would block the server.
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-4000);
      if (!ready && output.includes(READY_LINE)) {
        ready = true;
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("error", (error: NodeJS.ErrnoException) => {
      fail(
        error.code === "ENOENT"
          ? new Error("redis-server is not installed (expected on PATH, e.g. /usr/bin/redis-server): run `apt-get install -y redis-server`")
          : error,
      );
    });
    child.once("exit", (code, signal) => {
      if (!ready) fail(new Error(`redis-server on port ${port} exited (${signal ?? code}) before it was ready:\n${output}`));
    });
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/**
 * Starts redis-server again on the port it had (clients know only that port). While it was down,
 * another process (a parallel test file) may have bound the port for a moment: retry a few times
 * with a short, bounded back-off, then fail saying so.
 */
async function respawnOnSamePort(port: number, dataDir: string | undefined): Promise<ChildProcess> {
  let backoffMs = RESTART_FIRST_BACKOFF_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnRedis(port, dataDir);
    } catch (error) {
      if (!isPortTaken(error)) throw error;
      if (attempt >= RESTART_ATTEMPTS) {
        throw new Error(
          `redis-server could not restart on port ${port}: another process holds the port ` +
            `(still "Address already in use" after ${RESTART_ATTEMPTS} attempts)`,
          { cause: error },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, backoffMs));
      backoffMs *= 2;
    }
  }
}

/**
 * Starts Debian's redis-server on a free 127.0.0.1 port, without persistence, and resolves once it
 * prints that it accepts connections. Call stop() in afterAll.
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const dataDir = options.persistent ? mkdtempSync(join(tmpdir(), "lwc-redis-")) : undefined;
  let port = 0;
  let child: ChildProcess | undefined;
  // Another process can grab the free port between our probe and Redis binding it: try again.
  for (let attempt = 1; !child; attempt++) {
    port = await freePort();
    try {
      child = await spawnRedis(port, dataDir);
    } catch (error) {
      if (!isPortTaken(error) || attempt >= 3) throw error;
    }
  }

  // If the test process exits without afterAll, do not leave a Redis behind.
  const killOnExit = () => child?.kill("SIGKILL");
  process.on("exit", killOnExit);

  const stop = async () => {
    process.off("exit", killOnExit);
    if (child) await stopProcess(child);
  };

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    async dispose() {
      await stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
    async start() {
      if (child && child.exitCode === null && child.signalCode === null) return;
      child = await respawnOnSamePort(port, dataDir);
      process.off("exit", killOnExit);
      process.on("exit", killOnExit);
    },
  };
}
