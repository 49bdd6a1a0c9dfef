/**
 * A local fake of the Vercel Sandbox API (docs/mock-upstream.md#vercel-sandbox): a separate HTTP
 * server that speaks the wire protocol of the `/v2` and `/v3` routes `@vercel/sandbox` 3.5.0 calls,
 * whose sandboxes are local VMs (vm.ts: bubblewrap with a network and PID namespace of their own),
 * each exposed port on 127.0.0.1 at the `url` its route reports. Control routes under `/__fake/`
 * inject failures and count what is live.
 *
 *   const fake = await startFakeVercelSandbox({ imagePaths: [codexFolder], egress: ["127.0.0.1:4010"] });
 *   // the SDK, through the app's seam: LWC_VERCEL_SANDBOX_API_URL=fake.url, token/teamId/projectId below
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandJson, type CommandRecord } from "./api-shapes";
import { parseEgressTarget } from "./network-policy";
import { ApiError, createSandboxes, type Sandboxes } from "./sandboxes";
import { VM_CWD } from "./vm";
import { extractFiles, hostPath, VmPathError } from "./vm-files";

const FAKE_VERCEL_TOKEN = "fake-vercel-token";
const FAKE_VERCEL_TEAM_ID = "team_fake";
export const FAKE_VERCEL_PROJECT_ID = "prj_fake";
const MAX_BODY_BYTES = 64 * 1024 * 1024;

interface FakeVercelSandboxOptions {
  port?: number;
  host?: string;
  /** The one bearer token the API accepts. Not a JWT: the SDK would try to refresh a JWT at Vercel. */
  token?: string;
  teamId?: string;
  /** Host paths every VM shows read-only at the same path (the pinned codex's folder, for one). */
  imagePaths?: string[];
  /** Host loopback `host:port`s a VM may reach when its network policy allows the host. */
  egress?: string[];
  bwrapPath?: string;
}

export interface FakeVercelSandbox {
  url: string;
  token: string;
  teamId: string;
  /** What is live now: running sessions, VMs (bwrap processes) not yet ended, and every sandbox. */
  stats(): ReturnType<Sandboxes["stats"]>;
  /** Stops every VM and forgets everything (between tests). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers });
  response.end(text);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, "payload_too_large", "The body is too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function jsonBody(raw: Buffer): Record<string, unknown> {
  if (raw.length === 0) return {};
  try {
    const value: unknown = JSON.parse(raw.toString("utf8"));
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Answered below.
  }
  throw new ApiError(400, "bad_request", "The body must be a JSON object");
}

/** A command's output as NDJSON: what it wrote so far, then live until it exits (with `{command}` lines around it when `withCommand`). */
function streamLogs(response: ServerResponse, command: CommandRecord, withCommand: boolean): void {
  response.writeHead(200, { "content-type": "application/x-ndjson" });
  const line = (value: unknown) => response.write(`${JSON.stringify(value)}\n`);
  if (withCommand) line({ command: commandJson(command) });
  for (const entry of command.logs) line(entry);
  const finish = () => {
    command.listeners.delete(listener);
    if (withCommand) line({ command: commandJson(command) });
    response.end();
  };
  const listener = (entry: { stream: "stdout" | "stderr"; data: string } | undefined) => (entry ? line(entry) : finish());
  if (command.exitCode !== null) return finish();
  command.listeners.add(listener);
  response.once("close", () => command.listeners.delete(listener));
}

export async function startFakeVercelSandbox(options: FakeVercelSandboxOptions = {}): Promise<FakeVercelSandbox> {
  const token = options.token ?? FAKE_VERCEL_TOKEN;
  const teamId = options.teamId ?? FAKE_VERCEL_TEAM_ID;
  const folder = mkdtempSync(join(tmpdir(), "lwc-fake-vercel-"));
  const sandboxes = createSandboxes({
    imagePaths: options.imagePaths ?? [],
    egress: (options.egress ?? []).map(parseEgressTarget),
    bwrapPath: options.bwrapPath ?? "bwrap",
    snapshotsFolder: join(folder, "snapshots"),
  });

  /** `/__fake/…`: failure injection and counts, for tests. No token needed (loopback only). */
  async function control(method: string, parts: string[], body: Record<string, unknown>, response: ServerResponse): Promise<void> {
    const route = `${method} /${parts.join("/")}`;
    if (route === "GET /stats") return send(response, 200, sandboxes.stats());
    if (route === "POST /reset") {
      await sandboxes.stopAll(true);
      return send(response, 200, { ok: true });
    }
    if (route === "POST /fail-create") {
      sandboxes.failCreate({
        status: Number(body.status ?? 429),
        times: Number(body.times ?? 1),
        ...(body.retryAfter === undefined ? {} : { retryAfter: Number(body.retryAfter) }),
      });
      return send(response, 200, { ok: true });
    }
    const [first, name, third, port, fifth] = parts;
    if (method === "POST" && first === "sandboxes" && name && third === "stop" && parts.length === 3) {
      const status = body.status === "failed" || body.status === "aborted" ? body.status : "stopped";
      const sandbox = sandboxes.sandboxNamed(decodeURIComponent(name), null);
      return send(response, 200, await sandboxes.stop(sandboxes.currentSession(sandbox).id, status));
    }
    if (method === "POST" && first === "sandboxes" && name && third === "backdate" && parts.length === 3) {
      const ms = Number(body.ms);
      if (!Number.isInteger(ms) || ms <= 0) throw new ApiError(400, "bad_request", "ms must be a positive number of milliseconds");
      return send(response, 200, sandboxes.backdate(decodeURIComponent(name), ms));
    }
    if (method === "POST" && first === "sandboxes" && name && third === "ports" && port && fifth === "drop" && parts.length === 5) {
      const session = sandboxes.currentSession(sandboxes.sandboxNamed(decodeURIComponent(name), null));
      return send(response, 200, { dropped: session.vm?.dropConnections(Number(port)) ?? 0 });
    }
    throw new ApiError(404, "not_found", "No such control route");
  }

  async function sessionRoute(method: string, parts: string[], query: URLSearchParams, raw: Buffer, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const [sessionId, operation, commandId, commandOperation] = parts as [string, string?, string?, string?];
    // `cmd/<id>/logs` is matched as `cmd/:cmd/logs`; everything else as written (`fs/write`).
    const shape = operation === "cmd" && commandId !== undefined ? ["cmd", ":cmd", commandOperation] : parts.slice(1);
    const route = `${method} ${shape.filter((part) => part !== undefined).join("/")}`;
    switch (route) {
      case "GET ":
        return send(response, 200, sandboxes.sessionAnswer(sessionId));
      case "POST stop":
        return send(response, 200, await sandboxes.stop(sessionId));
      case "POST extend-timeout":
        return send(response, 200, sandboxes.extendTimeout(sessionId, jsonBody(raw).duration));
      case "POST snapshot":
        return send(response, 200, await sandboxes.snapshot(sessionId, jsonBody(raw)));
      case "POST cmd": {
        const body = jsonBody(raw);
        const command = sandboxes.runCommand(sessionId, body);
        if (body.wait === true) return streamLogs(response, command, true);
        return send(response, 200, { command: commandJson(command) });
      }
      case "GET cmd/:cmd": {
        const command = sandboxes.command(sessionId, commandId!);
        if (query.get("wait") === "true") await command.process.exited;
        return send(response, 200, { command: commandJson(command) });
      }
      case "GET cmd/:cmd/logs":
        return streamLogs(response, sandboxes.command(sessionId, commandId!), false);
      case "POST cmd/:cmd/kill": {
        const command = sandboxes.command(sessionId, commandId!);
        const signal = jsonBody(raw).signal ?? 15;
        if (!Number.isInteger(signal)) throw new ApiError(400, "bad_request", "signal must be a number");
        if (command.exitCode === null) command.process.kill(signal as number);
        return send(response, 200, { command: commandJson(command) });
      }
    }
    const running = sandboxes.runningSession(sessionId);
    const root = running.vm!.root;
    if (route === "POST fs/mkdir") {
      const body = jsonBody(raw);
      const target = hostPath(root, String(body.path), typeof body.cwd === "string" ? body.cwd : VM_CWD);
      try {
        mkdirSync(target);
      } catch (error) {
        throw new ApiError(400, "file_error", `mkdir ${String(body.path)}: ${(error as NodeJS.ErrnoException).code ?? "failed"}`);
      }
      return send(response, 200, {});
    }
    if (route === "POST fs/write") {
      await extractFiles(root, raw, String(request.headers["x-cwd"] ?? "/"));
      return send(response, 200, {});
    }
    if (route === "POST fs/read") {
      const body = jsonBody(raw);
      let content: Buffer;
      try {
        content = readFileSync(hostPath(root, String(body.path), typeof body.cwd === "string" ? body.cwd : VM_CWD));
      } catch (error) {
        if (error instanceof VmPathError) throw error;
        throw new ApiError(404, "file_not_found", "No such file");
      }
      response.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(content.length) });
      return void response.end(content);
    }
    throw new ApiError(404, "not_found", `No route ${method} /v2/sandboxes/sessions/…/${parts.slice(1).join("/")}`);
  }

  async function api(method: string, parts: string[], query: URLSearchParams, raw: Buffer, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const [version, collection, ...rest] = parts;
    if ((version !== "v2" && version !== "v3") || collection !== "sandboxes") throw new ApiError(404, "not_found", "No such route");
    if (rest.length === 0 && method === "POST") return send(response, 200, await sandboxes.create(jsonBody(raw)));
    if (version !== "v2") throw new ApiError(404, "not_found", "No such route");
    if (rest.length === 0 && method === "GET") return send(response, 200, sandboxes.list(query));
    if (rest[0] === "sessions" && rest.length === 1 && method === "GET") return send(response, 200, sandboxes.listSessions(query));
    if (rest[0] === "sessions" && rest[1]) return sessionRoute(method, rest.slice(1), query, raw, request, response);
    if (rest[0] === "snapshots" && rest[1] && rest.length === 2) {
      if (method === "GET") return send(response, 200, sandboxes.snapshotAnswer(rest[1]));
      if (method === "DELETE") return send(response, 200, sandboxes.deleteSnapshot(rest[1]));
    }
    if (rest.length === 1 && rest[0] !== "sessions" && rest[0] !== "snapshots") {
      const name = decodeURIComponent(rest[0]!);
      if (method === "GET") return send(response, 200, sandboxes.get(name, query.get("projectId"), query.get("resume")));
      if (method === "DELETE") return send(response, 200, await sandboxes.remove(name, query.get("projectId")));
    }
    throw new ApiError(404, "not_found", "No such route");
  }

  const server = createServer((request, response) => {
    void (async () => {
      try {
        const url = new URL(request.url ?? "/", "http://fake");
        const parts = url.pathname.replace(/^\/api(?=\/)/, "").split("/").filter((part) => part !== "");
        const raw = await readBody(request);
        if (parts[0] === "__fake") return await control(request.method ?? "GET", parts.slice(1), jsonBody(raw), response);
        if (request.headers.authorization !== `Bearer ${token}`) throw new ApiError(403, "forbidden", "Not authorized");
        if (url.searchParams.get("teamId") !== teamId) throw new ApiError(403, "forbidden", "Not a member of this team");
        await api(request.method ?? "GET", parts, url.searchParams, raw, request, response);
      } catch (error) {
        const failure =
          error instanceof ApiError ? error : error instanceof VmPathError ? new ApiError(400, "bad_request", error.message) : new ApiError(500, "internal_error", String(error));
        if (response.headersSent) return void response.destroy();
        send(response, failure.status, { error: { code: failure.code, message: failure.message } }, failure.headers);
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve));
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    token,
    teamId,
    stats: () => sandboxes.stats(),
    reset: () => sandboxes.stopAll(true),
    async close() {
      await sandboxes.stopAll(true);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
