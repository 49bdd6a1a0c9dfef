import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "pg";
import { freePort } from "./free-port";

/**
 * A throwaway Postgres cluster for tests: Debian's `postgresql` package (initdb and postgres from
 * /usr/lib/postgresql/<version>/bin), a fresh cluster in a temporary folder, on a free 127.0.0.1
 * port, trust authentication, no fsync. Postgres refuses to run as root, so as root it runs as the
 * `postgres` user the package creates (runuser). Stopped by the postmaster's pid; the folder goes.
 */
export interface PostgresServer {
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  /** A new empty database; returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** The postmaster's process id. */
  pid(): number | undefined;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s), awaits its exit and removes its folder. Idempotent. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
const READY_LINE = "database system is ready to accept connections";

function postgresBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((name) => existsSync(join(root, name, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error("Postgres is not installed (no /usr/lib/postgresql/*/bin/initdb): run `apt-get install -y postgresql`");
  return join(root, newest, "bin");
}

const asRoot = () => process.getuid?.() === 0;

/** The command line, run as the postgres user when we are root. */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return asRoot() ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
}

export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), "lwc-postgres-"));
  const dataDir = join(dir, "data");
  if (asRoot()) {
    const ids = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const uid = Number(ids.stdout.trim());
    const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim());
    if (!Number.isInteger(uid)) throw new Error("Running as root needs the `postgres` user that Debian's postgresql package makes");
    chownSync(dir, uid, gid);
  }
  const [initCommand, initArgs] = asPostgres(join(bin, "initdb"), ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const init = spawnSync(initCommand, initArgs, { encoding: "utf8" });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}): ${init.stderr.slice(-2000)}`);
  }

  let port = 0;
  let child: ChildProcess | undefined;
  let output = "";
  for (let attempt = 1; !child; attempt++) {
    port = await freePort();
    try {
      child = await launch(bin, dataDir, dir, port, (text) => (output = (output + text).slice(-4000)));
    } catch (error) {
      if (!/could not bind|Address already in use/i.test(output) || attempt >= 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  const postmasterPid = (): number | undefined => {
    try {
      const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  };
  const pid = postmasterPid();
  const killOnExit = () => {
    if (pid) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  };
  process.on("exit", killOnExit);
  const running = child;
  let stopped: Promise<void> | undefined;

  const url = (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    pid: () => pid,
    async createDatabase(name) {
      const client = new Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, "")}"`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    stop() {
      stopped ??= (async () => {
        process.off("exit", killOnExit);
        if (running.exitCode === null && running.signalCode === null) {
          const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
          const signal = (name: NodeJS.Signals) => {
            try {
              // The postmaster itself (runuser waits for it): a smart shutdown on SIGTERM.
              process.kill(pid ?? running.pid!, name);
            } catch {
              // already gone
            }
          };
          const force = setTimeout(() => signal("SIGKILL"), STOP_GRACE_MS);
          signal("SIGTERM");
          await exited;
          clearTimeout(force);
        }
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

function launch(bin: string, dataDir: string, socketDir: string, port: number, collect: (text: string) => void): Promise<ChildProcess> {
  const [command, args] = asPostgres(join(bin, "postgres"), [
    "-D", dataDir, "-p", String(port), "-h", "127.0.0.1", "-k", socketDir, "-F", "-c", "max_connections=60",
  ]);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let ready = false;
    let seen = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`postgres on port ${port} was not ready within ${START_TIMEOUT_MS} ms:\n${seen}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      seen = (seen + text).slice(-4000);
      collect(text);
      if (!ready && seen.includes(READY_LINE)) {
        ready = true;
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code, signal) => {
      if (!ready) {
        clearTimeout(timer);
        reject(new Error(`postgres on port ${port} exited (${signal ?? code}) before it was ready:\n${seen}`));
      }
    });
  });
}
