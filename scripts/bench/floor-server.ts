/**
 * The benchmark-only app of the framework's floor (scripts/bench/floor-app/): built when its build
 * is missing or older than its files, started as its own `next start` on loopback, stopped by pid.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../test-support/free-port";
import { FLOOR_PATH } from "./floor-app/forward";

const projectRoot = join(import.meta.dirname, "..", "..");
const APP_DIR = "scripts/bench/floor-app";
/** The app's build folder (its next.config.ts says so); git-ignored like every /.next-*. */
const BUILD_DIR = ".next-bench-floor";

export interface FloorServer {
  url: string;
  pid(): number | undefined;
  stop(): Promise<void>;
}

function newestSourceMs(folder: string): number {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && entry.name !== "next-env.d.ts")
    .reduce((newest, entry) => Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

function ensureFloorBuild(): void {
  const buildId = join(projectRoot, BUILD_DIR, "BUILD_ID");
  if (existsSync(buildId) && statSync(buildId).mtimeMs > newestSourceMs(join(projectRoot, APP_DIR))) return;
  console.log(`Building the floor app (${APP_DIR}) into ${BUILD_DIR}…`);
  // Without LWC_DIST_DIR: the product's next.config.ts would read it; this app has its own folder.
  const env = { ...process.env };
  delete env.LWC_DIST_DIR;
  const build = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build", APP_DIR], {
    cwd: projectRoot,
    env: { ...env, NODE_ENV: "production" },
    stdio: "inherit",
  });
  if (build.status !== 0) throw new Error("next build of the floor app failed");
}

/** Builds the floor app if needed and starts it; it forwards to `codexBaseUrl` (the mock's, loopback only). */
export async function startFloorServer(codexBaseUrl: string): Promise<FloorServer> {
  ensureFloorBuild();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let log = "";
  const child: ChildProcess = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", APP_DIR, "-p", String(port), "-H", "127.0.0.1"], {
    cwd: projectRoot,
    env: { ...process.env, NODE_ENV: "production", LWC_CODEX_BASE_URL: codexBaseUrl },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  try {
    await waitUntilServing(`${url}${FLOOR_PATH}`, exited, () => log);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: () => child.pid, stop };
}

/** Polls the floor route until it answers GET with its 405 (it only takes POST). */
async function waitUntilServing(routeUrl: string, exited: Promise<void>, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  const gone = exited.then(() => {
    throw new Error(`the floor app exited:\n${output()}`);
  });
  gone.catch(() => undefined);
  while (Date.now() < deadline) {
    const status = await Promise.race([fetch(routeUrl).then(
        async (reply) => {
          await reply.body?.cancel();
          return reply.status;
        },
        () => 0,
      ), gone]);
    if (status === 405) return;
    if (status !== 0) throw new Error(`the floor app answered ${status} on ${routeUrl}:\n${output()}`);
    // Bounded back-off between readiness probes (we poll a condition, not wait out a guess).
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the floor app did not start serving ${routeUrl}:\n${output()}`);
}
