/**
 * The fake's records and the JSON the Sandbox API answers with (the shapes `@vercel/sandbox`
 * 3.5.0 validates in dist/api-client/validators.js: unknown keys are dropped, these are required).
 */
import { policyAnswer } from "./network-policy";
import type { Vm, VmCommand } from "./vm";
import { VM_CWD } from "./vm";

const REGION = "iad1";
const MEMORY_PER_VCPU_MB = 2048;

export type SessionStatus = "pending" | "running" | "stopping" | "stopped" | "failed" | "aborted" | "snapshotting";

export interface SandboxRecord {
  name: string;
  projectId: string;
  persistent: boolean;
  tags: Record<string, string>;
  ports: number[];
  env: Record<string, string>;
  vcpus: number;
  timeout: number;
  networkPolicy: Parameters<typeof policyAnswer>[0];
  createdAt: number;
  updatedAt: number;
  currentSessionId: string;
  currentSnapshotId?: string;
}

export interface SessionRecord {
  id: string;
  sandboxName: string;
  status: SessionStatus;
  timeout: number;
  requestedAt: number;
  createdAt: number;
  startedAt: number;
  updatedAt: number;
  requestedStopAt?: number;
  stoppedAt?: number;
  sourceSnapshotId?: string;
  vm?: Vm;
  /** Route subdomain and host port of each exposed port (kept after the VM stops, as the API does). */
  routes: { port: number; subdomain: string; url: string }[];
  timer?: NodeJS.Timeout;
}

export interface CommandRecord {
  id: string;
  sessionId: string;
  name: string;
  args: string[];
  cwd: string;
  startedAt: number;
  exitCode: number | null;
  durationMs?: number;
  logs: { stream: "stdout" | "stderr"; data: string }[];
  /** Called with each log line as it comes, and with undefined at the end. */
  listeners: Set<(line: { stream: "stdout" | "stderr"; data: string } | undefined) => void>;
  process: VmCommand;
}

export interface SnapshotRecord {
  id: string;
  sourceSessionId: string;
  status: "created" | "deleted" | "failed";
  sizeBytes: number;
  createdAt: number;
  updatedAt: number;
  expiresAt?: number;
  /** The copy of the VM's writable folders. */
  folder: string;
}

export function sessionJson(session: SessionRecord, sandbox: SandboxRecord): Record<string, unknown> {
  return {
    id: session.id,
    memory: sandbox.vcpus * MEMORY_PER_VCPU_MB,
    vcpus: sandbox.vcpus,
    region: REGION,
    timeout: session.timeout,
    status: session.status,
    requestedAt: session.requestedAt,
    startedAt: session.startedAt,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    cwd: VM_CWD,
    networkPolicy: policyAnswer(sandbox.networkPolicy),
    ...(session.requestedStopAt === undefined ? {} : { requestedStopAt: session.requestedStopAt }),
    ...(session.stoppedAt === undefined ? {} : { stoppedAt: session.stoppedAt, duration: session.stoppedAt - session.startedAt }),
    ...(session.sourceSnapshotId === undefined ? {} : { sourceSnapshotId: session.sourceSnapshotId }),
  };
}

export function sandboxJson(sandbox: SandboxRecord, session: SessionRecord): Record<string, unknown> {
  return {
    name: sandbox.name,
    persistent: sandbox.persistent,
    region: REGION,
    vcpus: sandbox.vcpus,
    memory: sandbox.vcpus * MEMORY_PER_VCPU_MB,
    timeout: session.timeout,
    networkPolicy: policyAnswer(sandbox.networkPolicy),
    createdAt: sandbox.createdAt,
    updatedAt: sandbox.updatedAt,
    currentSessionId: sandbox.currentSessionId,
    status: session.status,
    statusUpdatedAt: session.updatedAt,
    cwd: VM_CWD,
    tags: sandbox.tags,
    ...(session.status === "running" ? { expiresAt: session.startedAt + session.timeout } : {}),
    ...(sandbox.currentSnapshotId === undefined ? {} : { currentSnapshotId: sandbox.currentSnapshotId }),
  };
}

export function commandJson(command: CommandRecord): Record<string, unknown> {
  return {
    id: command.id,
    name: command.name,
    args: command.args,
    cwd: command.cwd,
    sessionId: command.sessionId,
    exitCode: command.exitCode,
    startedAt: command.startedAt,
    ...(command.durationMs === undefined ? {} : { durationMs: command.durationMs }),
  };
}

export function snapshotJson(snapshot: SnapshotRecord): Record<string, unknown> {
  return {
    id: snapshot.id,
    sourceSessionId: snapshot.sourceSessionId,
    region: REGION,
    status: snapshot.status,
    sizeBytes: snapshot.sizeBytes,
    createdAt: snapshot.createdAt,
    updatedAt: snapshot.updatedAt,
    ...(snapshot.expiresAt === undefined ? {} : { expiresAt: snapshot.expiresAt }),
  };
}
