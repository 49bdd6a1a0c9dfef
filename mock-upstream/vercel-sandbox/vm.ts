/**
 * One fake VM: a bubblewrap sandbox with network, PID, IPC and UTS namespaces of its own, whose
 * first process is vm-init.mjs. What it sees:
 *
 * - read-only, as on the host: /usr and the /bin, /sbin, /lib* links or folders, the /etc files
 *   name resolution and TLS read, and the image paths the fake was given (for the tests: the
 *   pinned codex's folder); the fake's own node binary at /fake-image/bin/node, on PATH;
 * - writable, its own: /vercel (cwd /vercel/sandbox), /home (HOME /home/vercel-sandbox), /tmp and
 *   /opt, each a folder under `<root>/fs` on the host (what a snapshot copies), and a tmpfs root;
 * - its network: loopback only. Each exposed port P is reachable from the host at 127.0.0.1:<H>
 *   (a listener of the fake, through vm-init's port-P.sock to 127.0.0.1:P inside), so several VMs
 *   can each listen on the same port. Each egress port E it may use is 127.0.0.1:E inside, passed
 *   to the host's 127.0.0.1:E through a socket the fake serves.
 *
 * Stopping it kills bwrap (and with it everything in the VM's PID namespace) and removes `<root>`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync } from "node:fs";
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** The VM's writable top-level folders, each `<root>/fs/<name>` on the host. */
export const VM_WRITABLE_FOLDERS = ["vercel", "home", "tmp", "opt"] as const;
export const VM_CWD = "/vercel/sandbox";
export const VM_HOME = "/home/vercel-sandbox";
export const VM_PATH = "/fake-image/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

const SYSTEM_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
const SYSTEM_ETC_FILES = ["/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/ld.so.cache", "/etc/localtime", "/etc/alternatives", "/etc/ssl/certs", "/etc/ca-certificates"];
const CONTROL_INSIDE = "/run/fake-vm";
const VM_INIT = join(import.meta.dirname, "vm-init.mjs");
const READY_TIMEOUT_MS = 15_000;

interface VmCommandRequest {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** A command running in the VM: its output as it comes, and how it ended. */
export interface VmCommand {
  onOutput(listener: (stream: "stdout" | "stderr", data: string) => void): void;
  /** Resolves with the exit code (128 + the signal's number when a signal ended it; 127 when it could not start). */
  exited: Promise<number>;
  /** Sends a signal (a number) to the command's process group. */
  kill(signal: number): void;
}

export interface Vm {
  root: string;
  /** bwrap's pid on the host; everything in the VM dies with it. */
  hostPid: number;
  /** The host port of each exposed port. */
  hostPorts: Map<number, number>;
  run(request: VmCommandRequest): VmCommand;
  /** Ends every connection open now through an exposed port; how many there were. */
  dropConnections(port: number): number;
  /** Resolves when bwrap has exited (stopped, or died on its own). */
  exited: Promise<void>;
  /** Kills everything in the VM, closes its ports and removes its folder (its writable folders copied to `keepFilesIn` first). Idempotent. */
  stop(keepFilesIn?: string): Promise<void>;
}

interface VmOptions {
  /** A snapshot's folder: the VM's writable folders start as a copy of it. */
  filesFrom?: string;
  ports: number[];
  /** Host loopback ports the VM may reach as 127.0.0.1:<port> inside. */
  egressPorts: number[];
  /** Host paths shown read-only at the same path. */
  imagePaths: string[];
  bwrapPath: string;
}

function systemArgs(): string[] {
  const args: string[] = [];
  for (const folder of SYSTEM_FOLDERS) {
    if (!existsSync(folder)) continue;
    const stat = lstatSync(folder);
    if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(folder), folder);
    else args.push("--ro-bind", folder, folder);
  }
  for (const path of SYSTEM_ETC_FILES) if (existsSync(path)) args.push("--ro-bind", path, path);
  return args;
}

function pipeBoth(a: Socket, b: Socket): void {
  a.pipe(b);
  b.pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  for (const socket of [a, b]) {
    socket.on("error", end);
    socket.on("close", end);
  }
}

function listenOn(server: Server, target: { port: number; host: string } | string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(target, () => resolve());
  });
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // ESRCH: gone.
  }
}

export async function startVm(options: VmOptions): Promise<Vm> {
  const root = mkdtempSync(join(tmpdir(), "lwc-fake-vm-"));
  const fsRoot = join(root, "fs");
  const control = join(root, "run");
  mkdirSync(control, { mode: 0o700 });
  if (options.filesFrom) cpSync(options.filesFrom, fsRoot, { recursive: true });
  for (const folder of VM_WRITABLE_FOLDERS) mkdirSync(join(fsRoot, folder), { recursive: true });
  mkdirSync(join(fsRoot, VM_CWD), { recursive: true });
  mkdirSync(join(fsRoot, VM_HOME), { recursive: true });

  const servers: Server[] = [];
  const portSockets = new Map<number, Set<Socket>>();
  const hostPorts = new Map<number, number>();
  let child: ChildProcess | undefined;
  let stopping: Promise<void> | undefined;

  const stop = (keepFilesIn?: string) =>
    (stopping ??= (async () => {
      if (child && child.exitCode === null && child.signalCode === null) signalGroup(child, "SIGKILL");
      if (child) await exited;
      if (keepFilesIn) cpSync(fsRoot, keepFilesIn, { recursive: true });
      for (const sockets of portSockets.values()) for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      rmSync(root, { recursive: true, force: true });
    })());

  let exited: Promise<void> = Promise.resolve();
  try {
    // The host's side of each egress port: the VM's 127.0.0.1:<port> ends up here.
    for (const port of options.egressPorts) {
      const server = createServer((inside) => pipeBoth(inside, connect(port, "127.0.0.1")));
      servers.push(server);
      await listenOn(server, join(control, `egress-${port}.sock`));
    }
    const args = [
      "--die-with-parent",
      "--unshare-pid",
      "--unshare-net",
      "--unshare-ipc",
      "--unshare-uts",
      "--new-session",
      "--cap-drop",
      "ALL",
      ...systemArgs(),
      "--ro-bind",
      process.execPath,
      "/fake-image/bin/node",
      "--ro-bind",
      VM_INIT,
      "/fake-image/vm-init.mjs",
      ...options.imagePaths.flatMap((path) => ["--ro-bind", path, path]),
      ...VM_WRITABLE_FOLDERS.flatMap((folder) => ["--bind", join(fsRoot, folder), `/${folder}`]),
      "--bind",
      control,
      CONTROL_INSIDE,
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      "--chdir",
      VM_CWD,
      "--",
      "/fake-image/bin/node",
      "/fake-image/vm-init.mjs",
      "--control",
      CONTROL_INSIDE,
      "--ports",
      options.ports.join(","),
      "--egress",
      options.egressPorts.join(","),
    ];
    const started = spawn(options.bwrapPath, args, { env: { PATH: VM_PATH } as unknown as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"], detached: true });
    child = started;
    exited = new Promise((resolve) => started.once("close", () => resolve()));
    let stderr = "";
    started.stderr!.setEncoding("utf8");
    started.stderr!.on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-2_000)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the fake VM did not start in time")), READY_TIMEOUT_MS);
      createInterface({ input: started.stdout! }).once("line", () => {
        clearTimeout(timer);
        resolve();
      });
      started.once("error", (error) => reject(error));
      void exited.then(() => reject(new Error(`the fake VM could not start: ${stderr.trim() || "bwrap exited"}`)));
    });
    // The host's side of each exposed port: a listener on a random loopback port.
    for (const port of options.ports) {
      const sockets = new Set<Socket>();
      portSockets.set(port, sockets);
      const server = createServer((outside) => {
        sockets.add(outside);
        outside.once("close", () => sockets.delete(outside));
        pipeBoth(outside, connect(join(control, `port-${port}.sock`)));
      });
      servers.push(server);
      await listenOn(server, { port: 0, host: "127.0.0.1" });
      hostPorts.set(port, (server.address() as AddressInfo).port);
    }
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    root,
    hostPid: child!.pid!,
    hostPorts,
    exited,
    run(request) {
      const socket = connect(join(control, "init.sock"));
      const listeners: ((stream: "stdout" | "stderr", data: string) => void)[] = [];
      let resolveExit!: (code: number) => void;
      const commandExited = new Promise<number>((resolve) => (resolveExit = resolve));
      socket.on("error", () => resolveExit(137));
      socket.on("close", () => resolveExit(137));
      socket.write(`${JSON.stringify(request)}\n`);
      createInterface({ input: socket, crlfDelay: Infinity }).on("line", (line) => {
        const event = JSON.parse(line) as { stream?: "stdout" | "stderr"; data?: string; error?: string; exit?: { code: number | null; signal: NodeJS.Signals | null } };
        if (event.stream && event.data !== undefined) for (const listener of listeners) listener(event.stream, event.data);
        if (event.error) {
          for (const listener of listeners) listener("stderr", `${request.command}: ${event.error}\n`);
          resolveExit(127);
        }
        if (event.exit) resolveExit(event.exit.code ?? 128 + (event.exit.signal ? constants.signals[event.exit.signal] : 0));
      });
      return {
        onOutput: (listener) => listeners.push(listener),
        exited: commandExited,
        kill: (signal) => socket.write(`${JSON.stringify({ signal })}\n`),
      };
    },
    dropConnections(port) {
      const sockets = portSockets.get(port) ?? new Set();
      const count = sockets.size;
      for (const socket of sockets) socket.destroy();
      return count;
    },
    stop,
  };
}
