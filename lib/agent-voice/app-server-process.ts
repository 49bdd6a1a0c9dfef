import "server-only";
/**
 * One `codex app-server`, started in the configured sandbox (sandbox/types.ts): JSON-RPC over the
 * sandbox's channel, and a close that always ends it and removes what it had. Which backend runs
 * it (a local process group, a microVM) is the sandbox's business only. When processes are made,
 * handed out and ended is decided in one place: codex-processes.ts.
 */
import { createRpcConnection, METHOD_NOT_FOUND, RpcError, type RpcConnection, type RpcHandlers } from "./json-rpc";
import type { AgentLimits } from "./sandbox/limits";
import type { AgentSandbox, SandboxExit, SandboxHandle, StartedSandbox } from "./sandbox/types";
import { SandboxUnavailableError } from "./sandbox/unavailable";

export interface AppServerProcess {
  /** Where it runs, as plain JSON (never a secret). */
  handle: SandboxHandle;
  /** codex's working folder (thread/start's cwd). */
  workDir: string;
  rpc: RpcConnection;
  /** Where notifications and server requests go; replaceable (a warm process gets its owner later). */
  setHandlers(handlers: RpcHandlers): void;
  /** Puts it under its limits (memory, processes, CPU time): once it answered `initialize`, before it serves anyone. */
  applyLimits(): Promise<void>;
  /** Resolves when codex has ended (for whatever reason); `limit` when going over one ended it. */
  exited: Promise<SandboxExit>;
  hasExited(): boolean;
  /** The last stderr output, for a start-failure message (never logged whole). */
  stderrTail(): string;
  /** Ends it gently (input closed, SIGTERM, SIGKILL) and removes what it had. */
  close(): Promise<void>;
  /** Ends everything it started at once (the server's last moment). */
  killNow(): void;
  /** Where codex can outlive this instance (a VM): stops following it, codex goes on (reattachAppServer). */
  handOff?(): AppServerHandoff;
}

const ignoreAll: RpcHandlers = {
  onNotification: () => undefined,
  onRequest: async (method) => {
    throw new RpcError(METHOD_NOT_FOUND, `${method} is not supported by this client`);
  },
};

export async function spawnAppServer(options: { command: string; configToml?: string; sandbox: AgentSandbox; limits: AgentLimits }): Promise<AppServerProcess> {
  // Fail closed: never a process outside the sandbox it was configured with, or one that would
  // show the app's folder (checked again here, at each start).
  const sandboxStatus = await options.sandbox.status(options.command);
  if (!sandboxStatus.available) throw new SandboxUnavailableError(sandboxStatus.reason, sandboxStatus.fix);
  const started = await options.sandbox.start({
    command: options.command,
    args: ["app-server"],
    ...(options.configToml ? { configToml: options.configToml } : {}),
    limits: options.limits,
  });
  return asAppServer(started);
}

/** What another instance needs to go on with a codex this one handed off (sealed: it holds a secret). */
export interface AppServerHandoff {
  secret: string;
  /** The last line of codex's this instance heard. */
  cursor: number;
  /** Our next JSON-RPC request id (codex sees one client). */
  nextRpcId: number;
}

/** A codex another instance handed off (sandbox/types.ts `reopen`), followed from the line after its cursor. */
export async function reattachAppServer(sandbox: AgentSandbox, handle: SandboxHandle, handoff: AppServerHandoff): Promise<AppServerProcess> {
  if (!sandbox.reopen) throw new Error(`the ${sandbox.name} sandbox cannot reopen a codex another instance started`);
  return asAppServer(await sandbox.reopen(handle, handoff.secret, handoff.cursor), handoff.nextRpcId);
}

function asAppServer(started: StartedSandbox, firstRpcId = 1): AppServerProcess {
  const { channel } = started;
  let exitedFlag = false;
  void channel.exited.then(() => (exitedFlag = true));

  let handlers = ignoreAll;
  const rpc = createRpcConnection(
    channel,
    {
      onNotification: (method, params) => handlers.onNotification(method, params),
      onRequest: (method, params, id) => handlers.onRequest(method, params, id),
    },
    firstRpcId,
  );
  void channel.exited.then(() => rpc.close("the app-server process exited"));

  let closing: Promise<void> | undefined;
  const handOff = started.handOff;
  return {
    handle: started.handle,
    workDir: started.workDir,
    rpc,
    setHandlers(next) {
      handlers = next;
    },
    applyLimits: () => started.applyLimits(),
    exited: channel.exited,
    hasExited: () => exitedFlag,
    stderrTail: () => channel.stderrTail(),
    close() {
      closing ??= started.stop().finally(() => rpc.close("closed"));
      return closing;
    },
    killNow: () => started.stopNow(),
    ...(handOff
      ? {
          handOff() {
            const nextRpcId = rpc.nextRequestId();
            const { secret, cursor } = handOff();
            rpc.close("handed off to another instance");
            return { secret, cursor, nextRpcId };
          },
        }
      : {}),
  };
}
