/**
 * Test support: drive a real `codex app-server` over stdio (newline-delimited JSON-RPC without the
 * "jsonrpc" field), with a private CODEX_HOME and an empty working directory, and a minimal
 * environment. Ends the process on close (stdin end, then SIGTERM, then SIGKILL).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

export interface RpcMessage {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string };
  [field: string]: unknown;
}

type ServerRequestHandler = (message: RpcMessage) => unknown;

interface DriverOptions {
  codexPath: string;
  configToml: string;
  /** Extra environment (proxy variables); nothing of the test process is inherited but PATH. */
  env?: Record<string, string>;
  /** A command to run codex under (for example strace and its arguments). */
  prefix?: string[];
  /** Answers server→client requests; the default declines approvals and errors everything else. */
  onServerRequest?: ServerRequestHandler;
}

const CLOSE_GRACE_MS = 2_000;

export class AppServerDriver {
  readonly codexHome: string;
  readonly workDir: string;
  /** Messages from the server. */
  readonly messages: RpcMessage[] = [];
  /** Both directions in order: "in" = sent to codex, "out" = sent by codex. */
  readonly transcript: { dir: "in" | "out"; message: RpcMessage }[] = [];
  readonly stderr: string[] = [];
  private readonly child: ChildProcessWithoutNullStreams;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (m: RpcMessage) => void }>();
  private readonly watchers = new Set<{ predicate: (m: RpcMessage) => boolean; resolve: (m: RpcMessage) => void }>();
  private readonly exited: Promise<number | null>;
  private onServerRequest: ServerRequestHandler;

  constructor(options: DriverOptions) {
    this.codexHome = mkdtempSync(join(tmpdir(), "lwc-codex-home-"));
    this.workDir = mkdtempSync(join(tmpdir(), "lwc-codex-cwd-"));
    writeFileSync(join(this.codexHome, "config.toml"), options.configToml, { mode: 0o600 });
    this.onServerRequest = options.onServerRequest ?? declineEverything;
    const [command, ...args] = [...(options.prefix ?? []), options.codexPath, "app-server"];
    this.child = spawn(command!, args, {
      cwd: this.workDir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: this.codexHome, CODEX_HOME: this.codexHome, ...options.env } as unknown as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe"],
      // Its own process group: the `codex` launcher starts the native binary as a child.
      detached: true,
    });
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
    createInterface({ input: this.child.stdout }).on("line", (line) => this.receive(line));
    createInterface({ input: this.child.stderr }).on("line", (line) => this.stderr.push(line));
  }

  get pid(): number {
    return this.child.pid!;
  }

  setServerRequestHandler(handler: ServerRequestHandler): void {
    this.onServerRequest = handler;
  }

  request(method: string, params: Record<string, unknown>): Promise<RpcMessage> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve });
      this.send({ id, method, params });
    });
  }

  async call(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const reply = await this.request(method, params);
    if (reply.error) throw new Error(`${method} failed: ${reply.error.code} ${reply.error.message}`);
    return reply.result as Record<string, unknown>;
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.send(params === undefined ? { method } : { method, params });
  }

  /** Resolves on an existing or future message from the server. */
  waitFor(predicate: (m: RpcMessage) => boolean, timeoutMs = 15_000): Promise<RpcMessage> {
    const existing = this.messages.find(predicate);
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve, reject) => {
      const watcher = {
        predicate,
        resolve: (m: RpcMessage) => {
          clearTimeout(timer);
          this.watchers.delete(watcher);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.watchers.delete(watcher);
        reject(new Error(`codex app-server: no matching message within ${timeoutMs} ms; last: ${this.messages.slice(-5).map((m) => m.method ?? "reply").join(", ")}`));
      }, timeoutMs);
      this.watchers.add(watcher);
    });
  }

  waitForNotification(method: string, timeoutMs?: number): Promise<RpcMessage> {
    return this.waitFor((m) => m.method === method && m.id === undefined, timeoutMs);
  }

  /** initialize (experimental API on) + initialized. */
  async initialize(): Promise<Record<string, unknown>> {
    const result = await this.call("initialize", {
      clientInfo: { name: "lwc_tests", title: null, version: "0.0.0" },
      capabilities: { experimentalApi: true },
    });
    this.notify("initialized");
    return result;
  }

  /** End stdin, wait; then SIGTERM, wait; then SIGKILL. Removes the temporary folders. */
  async close(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.stdin.end();
      if (!(await this.exitWithin(CLOSE_GRACE_MS))) {
        signalGroup(this.pid, "SIGTERM");
        if (!(await this.exitWithin(CLOSE_GRACE_MS))) signalGroup(this.pid, "SIGKILL");
      }
    }
    const code = await this.exited;
    rmSync(this.codexHome, { recursive: true, force: true });
    rmSync(this.workDir, { recursive: true, force: true });
    return code;
  }

  private exitWithin(ms: number): Promise<boolean> {
    return Promise.race([this.exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
  }

  private send(message: RpcMessage): void {
    this.transcript.push({ dir: "in", message });
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  private receive(line: string): void {
    let message: RpcMessage;
    try {
      message = JSON.parse(line) as RpcMessage;
    } catch {
      this.stderr.push(`(stdout, not JSON) ${line}`);
      return;
    }
    this.messages.push(message);
    this.transcript.push({ dir: "out", message });
    if (message.id !== undefined && message.method === undefined) {
      this.pending.get(Number(message.id))?.resolve(message);
      this.pending.delete(Number(message.id));
    } else if (message.id !== undefined && message.method !== undefined) {
      void this.answer(message);
    }
    for (const watcher of [...this.watchers]) if (watcher.predicate(message)) watcher.resolve(message);
  }

  private async answer(message: RpcMessage): Promise<void> {
    try {
      const result = await this.onServerRequest(message);
      this.send({ id: message.id, result });
    } catch (error) {
      this.send({ id: message.id, error: { code: -32000, message: error instanceof Error ? error.message : String(error) } });
    }
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is gone.
  }
}

const APPROVALS = new Set([
  "item/commandExecution/requestApproval",
  "item/fileChange/requestApproval",
  "applyPatchApproval",
  "execCommandApproval",
]);

/** Approvals: decline; permissions, user input, elicitation and anything else: error. */
export function declineEverything(message: RpcMessage): unknown {
  if (message.method && APPROVALS.has(message.method)) {
    return message.method.startsWith("item/") ? { decision: "decline" } : { decision: "denied" };
  }
  throw new Error(`not supported by this client: ${message.method}`);
}
