/**
 * The fake's sandboxes, sessions, commands and snapshots, and what the API's routes do to them.
 * Each operation returns the answer's JSON or throws an ApiError (server.ts writes either).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  commandJson,
  sandboxJson,
  sessionJson,
  snapshotJson,
  type CommandRecord,
  type SandboxRecord,
  type SessionRecord,
  type SessionStatus,
  type SnapshotRecord,
} from "./api-shapes";
import { reachableTargets, type EgressTarget } from "./network-policy";
import { startVm, VM_CWD, VM_HOME, VM_PATH } from "./vm";

/** An error answer: `{error: {code, message}}` with this status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const MAX_PORTS = 15;
const MAX_TAGS = 5;
const DEFAULT_TIMEOUT_MS = 300_000;
const DEFAULT_VCPUS = 2;
const DEFAULT_LIST_LIMIT = 50;

interface SandboxesOptions {
  imagePaths: string[];
  egress: EgressTarget[];
  bwrapPath: string;
  /** Where snapshots are kept (removed by close). */
  snapshotsFolder: string;
}

interface CreateFailure {
  status: number;
  times: number;
  retryAfter?: number;
}

const newId = (prefix: string) => `${prefix}_${randomBytes(10).toString("hex")}`;
const isStringRecord = (value: unknown): value is Record<string, string> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((item) => typeof item === "string");

function folderSize(folder: string): number {
  let total = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

export function createSandboxes(options: SandboxesOptions) {
  const sandboxes = new Map<string, SandboxRecord>();
  const sessions = new Map<string, SessionRecord>();
  const commands = new Map<string, CommandRecord>();
  const snapshots = new Map<string, SnapshotRecord>();
  const createFailures: CreateFailure[] = [];
  mkdirSync(options.snapshotsFolder, { recursive: true });

  const sandboxOf = (session: SessionRecord) => sandboxes.get(session.sandboxName)!;
  const answerFor = (sandbox: SandboxRecord) => {
    const session = sessions.get(sandbox.currentSessionId)!;
    return { sandbox: sandboxJson(sandbox, session), session: sessionJson(session, sandbox), routes: session.routes };
  };

  function session(id: string): SessionRecord {
    const found = sessions.get(id);
    if (!found) throw new ApiError(404, "not_found", "Session not found");
    return found;
  }

  /** A session that must be running for the route (410 otherwise, which makes the SDK try to resume). */
  function runningSession(id: string): SessionRecord {
    const found = session(id);
    if (found.status !== "running") throw new ApiError(410, "sandbox_stopped", "The sandbox is stopped");
    return found;
  }

  function sandboxNamed(name: string, projectId: string | null): SandboxRecord {
    const found = sandboxes.get(name);
    if (!found || (projectId !== null && found.projectId !== projectId)) throw new ApiError(404, "not_found", "Sandbox not found");
    return found;
  }

  /** Ends a session's VM (kill, close its ports, remove its files; copied first when `keepFilesIn`). */
  async function stopSession(target: SessionRecord, status: SessionStatus, keepFilesIn?: string): Promise<void> {
    if (target.status !== "running" && target.status !== "pending") return;
    clearTimeout(target.timer);
    const now = Date.now();
    target.status = keepFilesIn ? "snapshotting" : "stopping";
    target.requestedStopAt = now;
    target.updatedAt = now;
    await target.vm?.stop(keepFilesIn);
    target.vm = undefined;
    target.status = status;
    target.stoppedAt = target.updatedAt = Date.now();
  }

  function armTimeout(target: SessionRecord): void {
    clearTimeout(target.timer);
    target.timer = setTimeout(() => void stopSession(target, "stopped"), Math.max(0, target.startedAt + target.timeout - Date.now()));
  }

  async function create(body: Record<string, unknown>) {
    const failure = createFailures.find((entry) => entry.times > 0);
    if (failure) {
      failure.times -= 1;
      throw new ApiError(failure.status, failure.status === 429 ? "too_many_requests" : "internal_error", "Injected failure (the fake's /__fake/fail-create)", {
        ...(failure.retryAfter === undefined ? {} : { "retry-after": String(failure.retryAfter) }),
      });
    }
    if (typeof body.projectId !== "string") throw new ApiError(400, "bad_request", "projectId is required");
    const ports = (body.ports ?? []) as unknown;
    if (!Array.isArray(ports) || ports.length > MAX_PORTS || !ports.every((port) => Number.isInteger(port) && port > 0 && port < 65_536)) {
      throw new ApiError(400, "bad_request", `ports must be at most ${MAX_PORTS} port numbers`);
    }
    const tags = body.tags ?? {};
    if (!isStringRecord(tags) || Object.keys(tags).length > MAX_TAGS) throw new ApiError(400, "bad_request", `tags must be at most ${MAX_TAGS} string pairs`);
    const env = body.env ?? {};
    if (!isStringRecord(env)) throw new ApiError(400, "bad_request", "env must map names to strings");
    const timeout = body.timeout ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(timeout) || (timeout as number) <= 0) throw new ApiError(400, "bad_request", "timeout must be a positive number of milliseconds");
    const source = body.source as { type?: string; snapshotId?: string } | undefined;
    let snapshot: SnapshotRecord | undefined;
    if (source) {
      if (source.type !== "snapshot") throw new ApiError(400, "bad_request", "the fake starts sandboxes from a snapshot or from its image only");
      snapshot = snapshots.get(String(source.snapshotId));
      if (!snapshot || snapshot.status !== "created") throw new ApiError(410, "snapshot_not_found", "Snapshot not found");
    }
    const name = typeof body.name === "string" ? body.name : `sbx-${randomBytes(6).toString("hex")}`;
    if (sandboxes.has(name)) throw new ApiError(409, "conflict", "A sandbox with this name exists");

    const now = Date.now();
    const sandbox: SandboxRecord = {
      name,
      projectId: body.projectId,
      persistent: body.persistent !== false,
      tags,
      ports: ports as number[],
      env,
      vcpus: Number((body.resources as { vcpus?: number } | undefined)?.vcpus ?? DEFAULT_VCPUS),
      timeout: timeout as number,
      networkPolicy: body.networkPolicy as SandboxRecord["networkPolicy"],
      createdAt: now,
      updatedAt: now,
      currentSessionId: newId("sbx_sess"),
    };
    const egressPorts = [...new Set(reachableTargets(sandbox.networkPolicy, options.egress).map((target) => target.port))];
    let vm;
    try {
      vm = await startVm({ ports: sandbox.ports, egressPorts, imagePaths: options.imagePaths, bwrapPath: options.bwrapPath, ...(snapshot ? { filesFrom: snapshot.folder } : {}) });
    } catch (error) {
      throw new ApiError(500, "internal_error", `the fake could not start a VM: ${error instanceof Error ? error.message : String(error)}`);
    }
    const record: SessionRecord = {
      id: sandbox.currentSessionId,
      sandboxName: name,
      status: "running",
      timeout: sandbox.timeout,
      requestedAt: now,
      createdAt: now,
      startedAt: Date.now(),
      updatedAt: Date.now(),
      ...(snapshot ? { sourceSnapshotId: snapshot.id } : {}),
      vm,
      routes: sandbox.ports.map((port) => ({ port, subdomain: `${name}-${port}`, url: `http://127.0.0.1:${vm.hostPorts.get(port)}` })),
    };
    sandboxes.set(name, sandbox);
    sessions.set(record.id, record);
    armTimeout(record);
    // A VM that dies on its own (not stopped through the API) is a failed session.
    void vm.exited.then(() => {
      if (record.status === "running") void stopSession(record, "failed");
    });
    return { ...answerFor(sandbox), resumed: false };
  }

  function list(query: URLSearchParams) {
    const project = query.get("project");
    const tag = query.get("tags");
    const [tagKey, ...tagValue] = (tag ?? "").split(":");
    const prefix = query.get("namePrefix") ?? "";
    const descending = (query.get("sortOrder") ?? "desc") === "desc";
    const byName = query.get("sortBy") === "name";
    const matching = [...sandboxes.values()]
      .filter((sandbox) => project === null || sandbox.projectId === project)
      .filter((sandbox) => tag === null || sandbox.tags[tagKey!] === tagValue.join(":"))
      .filter((sandbox) => sandbox.name.startsWith(prefix))
      .sort((a, b) => (byName ? a.name.localeCompare(b.name) : a.createdAt - b.createdAt) * (descending ? -1 : 1));
    const offset = Number(query.get("cursor") ?? "0") || 0;
    const limit = Number(query.get("limit") ?? DEFAULT_LIST_LIMIT) || DEFAULT_LIST_LIMIT;
    const page = matching.slice(offset, offset + limit);
    return {
      sandboxes: page.map((sandbox) => sandboxJson(sandbox, sessions.get(sandbox.currentSessionId)!)),
      pagination: { count: page.length, next: offset + limit < matching.length ? String(offset + limit) : null },
    };
  }

  function runCommand(sessionId: string, body: Record<string, unknown>): CommandRecord {
    const target = runningSession(sessionId);
    if (typeof body.command !== "string" || body.command === "") throw new ApiError(400, "bad_request", "command is required");
    const args = (body.args ?? []) as unknown;
    if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) throw new ApiError(400, "bad_request", "args must be strings");
    const env = body.env ?? {};
    if (!isStringRecord(env)) throw new ApiError(400, "bad_request", "env must map names to strings");
    const cwd = typeof body.cwd === "string" ? body.cwd : VM_CWD;
    const running = target.vm!.run({ command: body.command, args, cwd, env: { PATH: VM_PATH, HOME: VM_HOME, ...sandboxOf(target).env, ...env } });
    const command: CommandRecord = { id: newId("cmd"), sessionId, name: body.command, args, cwd, startedAt: Date.now(), exitCode: null, logs: [], listeners: new Set(), process: running };
    commands.set(command.id, command);
    running.onOutput((stream, data) => {
      command.logs.push({ stream, data });
      for (const listener of command.listeners) listener({ stream, data });
    });
    const timeout = typeof body.timeout === "number" ? setTimeout(() => running.kill(9), body.timeout) : undefined;
    void running.exited.then((code) => {
      clearTimeout(timeout);
      command.exitCode = code;
      command.durationMs = Date.now() - command.startedAt;
      for (const listener of command.listeners) listener(undefined);
    });
    return command;
  }

  function command(sessionId: string, commandId: string): CommandRecord {
    session(sessionId);
    const found = commands.get(commandId);
    if (!found || found.sessionId !== sessionId) throw new ApiError(404, "not_found", "Command not found");
    return found;
  }

  async function snapshot(sessionId: string, body: Record<string, unknown> | undefined) {
    const target = runningSession(sessionId);
    const id = newId("snap");
    const folder = join(options.snapshotsFolder, id);
    await stopSession(target, "stopped", folder);
    const now = Date.now();
    const expiration = typeof body?.expiration === "number" && body.expiration > 0 ? body.expiration : undefined;
    const record: SnapshotRecord = {
      id,
      sourceSessionId: sessionId,
      status: "created",
      sizeBytes: folderSize(folder),
      createdAt: now,
      updatedAt: now,
      ...(expiration ? { expiresAt: now + expiration } : {}),
      folder,
    };
    snapshots.set(id, record);
    const sandbox = sandboxOf(target);
    sandbox.currentSnapshotId = id;
    return { snapshot: snapshotJson(record), session: sessionJson(target, sandbox) };
  }

  function snapshotById(id: string): SnapshotRecord {
    const found = snapshots.get(id);
    if (!found) throw new ApiError(404, "not_found", "Snapshot not found");
    return found;
  }

  return {
    create,
    list,
    get(name: string, projectId: string | null, resume: string | null) {
      const sandbox = sandboxNamed(name, projectId);
      const current = sessions.get(sandbox.currentSessionId)!;
      if (resume === "true" && current.status !== "running") throw new ApiError(410, "sandbox_stopped", "The fake does not resume stopped sandboxes");
      return { ...answerFor(sandbox), resumed: false };
    },
    async remove(name: string, projectId: string | null) {
      const sandbox = sandboxNamed(name, projectId);
      const current = sessions.get(sandbox.currentSessionId)!;
      await stopSession(current, "stopped");
      sandboxes.delete(name);
      return { sandbox: sandboxJson(sandbox, current) };
    },
    sessionAnswer(id: string) {
      const found = session(id);
      return { session: sessionJson(found, sandboxOf(found)), routes: found.routes };
    },
    listSessions(query: URLSearchParams) {
      const name = query.get("name");
      const found = [...sessions.values()].filter((entry) => name === null || entry.sandboxName === name);
      return { sessions: found.map((entry) => sessionJson(entry, sandboxOf(entry))), pagination: { count: found.length, next: null } };
    },
    async stop(id: string, status: SessionStatus = "stopped") {
      const found = session(id);
      await stopSession(found, status);
      const sandbox = sandboxOf(found);
      return { session: sessionJson(found, sandbox), sandbox: sandboxJson(sandbox, found) };
    },
    extendTimeout(id: string, duration: unknown) {
      const found = runningSession(id);
      if (!Number.isInteger(duration) || (duration as number) <= 0) throw new ApiError(400, "bad_request", "duration must be a positive number of milliseconds");
      found.timeout += duration as number;
      found.updatedAt = Date.now();
      armTimeout(found);
      return { session: sessionJson(found, sandboxOf(found)) };
    },
    runningSession,
    runCommand,
    command,
    commandJson,
    snapshot,
    snapshotAnswer: (id: string) => ({ snapshot: snapshotJson(snapshotById(id)) }),
    deleteSnapshot(id: string) {
      const found = snapshotById(id);
      found.status = "deleted";
      found.updatedAt = Date.now();
      rmSync(found.folder, { recursive: true, force: true });
      return { snapshot: snapshotJson(found) };
    },
    /** As if the sandbox had been created `ms` earlier: what the API reports as its `createdAt` (list, get). */
    backdate(name: string, ms: number) {
      const sandbox = sandboxNamed(name, null);
      sandbox.createdAt -= ms;
      return { name, createdAt: sandbox.createdAt };
    },
    /** The next `times` creates answer `status` (with Retry-After when given). */
    failCreate(failure: CreateFailure) {
      createFailures.push(failure);
    },
    sandboxNamed,
    currentSession: (sandbox: SandboxRecord) => sessions.get(sandbox.currentSessionId)!,
    stats() {
      const all = [...sandboxes.values()].map((sandbox) => {
        const current = sessions.get(sandbox.currentSessionId)!;
        return { name: sandbox.name, status: current.status, tags: sandbox.tags, sessionId: current.id, ...(current.vm ? { vmPid: current.vm.hostPid } : {}) };
      });
      return {
        live: [...sessions.values()].filter((entry) => entry.status === "running").length,
        vms: [...sessions.values()].filter((entry) => entry.vm !== undefined).length,
        sandboxes: all,
      };
    },
    /** Stops every VM; with `forget`, the fake then knows no sandbox, command or snapshot. */
    async stopAll(forget: boolean) {
      await Promise.all([...sessions.values()].map((entry) => stopSession(entry, "stopped")));
      createFailures.length = 0;
      if (!forget) return;
      sandboxes.clear();
      sessions.clear();
      commands.clear();
      for (const entry of snapshots.values()) rmSync(entry.folder, { recursive: true, force: true });
      snapshots.clear();
    },
  };
}

export type Sandboxes = ReturnType<typeof createSandboxes>;
