/**
 * Test support: the app's own handler served by a Node process of its own (app-process.ts), with
 * the working folder and environment a test chooses, the codex processes it starts (found by
 * parentage, so other people's codex processes on the machine never count), and a stop that ends
 * it by pid and proves its codex processes went with it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const projectRoot = join(import.meta.dirname, "..", "..");

export interface ServedApp {
  child: ChildProcess;
  pid: number;
  port: number;
  /** Everything the server wrote (stdout and stderr). */
  output(): string;
  /** Every process it started and their descendants (bwrap, the codex launcher, codex). */
  descendants(): number[];
  /** VmHWM of the server process, in kB. */
  peakKb(): number;
  stop(): Promise<void>;
}

interface ServeOptions {
  env: Record<string, string>;
  /** The server's working folder (the app's folder). Default: the project. */
  cwd?: string;
  /** Read the app folder's .env files first, as `next start` does (@next/env). */
  loadEnvFiles?: boolean;
}

function parentOf(pid: string): number | undefined {
  try {
    // "pid (comm) state ppid ...": comm may hold spaces, so read after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined; // Gone while we looked.
  }
}

export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(entry);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** `root` and its descendants now, each with its command line (a VM's bwrap: its init, the relay, codex). */
export function processTree(root: number): { pid: number; cmdline: string }[] {
  return [root, ...descendantsOf(root)].flatMap((pid) => {
    try {
      return [{ pid, cmdline: readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ") }];
    } catch {
      return []; // Gone while we looked.
    }
  });
}

export function statusField(pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]);
}

async function untilGone(pids: number[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some((pid) => existsSync(`/proc/${pid}`))) {
    if (Date.now() > deadline) throw new Error(`still running: ${pids.filter((pid) => existsSync(`/proc/${pid}`)).join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function serveApp(options: ServeOptions): Promise<ServedApp> {
  // tsx by path: the server may run in a folder with no node_modules of its own.
  const tsx = pathToFileURL(join(projectRoot, "node_modules/tsx/dist/loader.mjs")).href;
  const args = ["--conditions=react-server", "--import", tsx, join(projectRoot, "tests/codex-real/app-process.ts")];
  if (options.loadEnvFiles) args.push("--load-env-files");
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? projectRoot,
    // tsx finds the project's path aliases through its tsconfig, wherever the server runs.
    env: { TSX_TSCONFIG_PATH: join(projectRoot, "tsconfig.json"), ...options.env } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}: ${output}`)));
  });
  const pid = child.pid!;
  return {
    child,
    pid,
    port,
    output: () => output,
    descendants: () => descendantsOf(pid),
    peakKb: () => statusField(pid, "VmHWM"),
    async stop() {
      const pids = descendantsOf(pid);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGKILL");
        await exited;
      }
      // Without their server: the sandbox dies with its parent; unsandboxed, codex exits as stdin closes.
      await untilGone(pids);
      for (const name of readdirSync(tmpdir())) {
        if (!name.startsWith("lwc-codex-")) continue;
        const ownerFile = join(tmpdir(), name, ".owner-pid");
        if (existsSync(ownerFile) && readFileSync(ownerFile, "utf8") === String(pid)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
      }
    },
  };
}
