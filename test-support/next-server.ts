import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port";

const projectRoot = join(import.meta.dirname ?? process.cwd(), "..");

export interface NextServer {
  url: string;
  port: number;
  /** Process id of the running server, for memory measurements. */
  pid(): number | undefined;
  /** Everything the server printed so far (stdout and stderr). */
  output(): string;
  /** Kills the server (SIGKILL when `crash` is set, as a crashed instance would die) and awaits its exit. */
  stop(options?: { crash?: boolean }): Promise<void>;
  /** Starts it again on the same port with the same environment (optionally changed). */
  restart(envPatch?: Record<string, string>): Promise<void>;
}

/**
 * Runs the production build (`next start`) as its own process, the way a deployment
 * does. Requires `next build` to have run. Resolves once /api/health answers.
 */
export async function startNextServer(env: Record<string, string>, port?: number): Promise<NextServer> {
  // LWC_DIST_DIR picks another build (the base-path one: `npm run build:base-path`); the server gets
  // this process's environment too, so an exported LWC_DIST_DIR is the build it runs.
  const distDir = env.LWC_DIST_DIR ?? process.env.LWC_DIST_DIR ?? ".next";
  if (!existsSync(join(projectRoot, distDir, "BUILD_ID"))) {
    throw new Error(`No production build in ${distDir}: run \`npm run build${distDir === ".next" ? "" : ":base-path"}\` first.`);
  }
  const chosenPort = port ?? (await freePort());
  // Each server its own embedded history folder (unless the test names one), kept across restarts
  // like a deploy's disk: two servers on the repository's .data would refuse each other's lock.
  const ownDataDir = env.LWC_DATA_DIR === undefined ? mkdtempSync(join(tmpdir(), "lwc-next-data-")) : undefined;
  if (ownDataDir) process.once("exit", () => rmSync(ownDataDir, { recursive: true, force: true }));
  let currentEnv: Record<string, string> = { ...env, ...(ownDataDir ? { LWC_DATA_DIR: ownDataDir } : {}) };
  let child: ChildProcess | undefined;
  let log = "";

  const launch = async () => {
    // Started directly (not through npx) so killing it kills next-server too.
    child = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(chosenPort), "-H", "127.0.0.1"], {
      cwd: projectRoot,
      env: { ...process.env, NODE_ENV: "production", ...currentEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
    await waitForHealth(`http://127.0.0.1:${chosenPort}${currentEnv.LWC_BASE_PATH ?? ""}/api/health`, child, () => log);
    await historySettled(child, () => log);
  };

  const stop = async (options: { crash?: boolean } = {}) => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    running.kill(options.crash ? "SIGKILL" : "SIGTERM");
    await exited;
  };

  await launch();
  return {
    url: `http://127.0.0.1:${chosenPort}`,
    port: chosenPort,
    pid: () => child?.pid,
    output: () => log,
    stop,
    restart: async (envPatch = {}) => {
      await stop();
      currentEnv = { ...currentEnv, ...envPatch };
      await launch();
    },
  };
}

/**
 * With history on, the database opens in the background after start (lib/history/start.ts); an
 * embedded one keeps the CPU busy for seconds. Ready means it said how that went, so a test's
 * first page or call does not race it.
 */
async function historySettled(child: ChildProcess, output: () => string): Promise<void> {
  const historyOn = () => /chat history: (embedded database in|Postgres at)/.test(output());
  const settled = () => /chat history: (database ready|the database could not be opened)/.test(output());
  if (!historyOn() || settled()) return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`the history database did not settle within 60 s:\n${output()}`)), 60_000);
    const onData = () => {
      if (settled()) finish();
    };
    const onExit = (code: number | null) => finish(new Error(`next start exited with ${code}:\n${output()}`));
    function finish(error?: Error) {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
      if (error) reject(error);
      else resolve();
    }
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", onExit);
    if (settled()) finish();
  });
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`next start exited with ${code}:\n${output()}`))),
  );
  exited.catch(() => undefined);
  while (Date.now() < deadline) {
    const ok = await Promise.race([
      fetch(url).then((r) => r.ok, () => false),
      exited,
    ]);
    if (ok) return;
    // Bounded back-off between readiness probes (not a synchronisation sleep: we poll a condition).
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`next start did not become healthy at ${url}:\n${output()}`);
}
