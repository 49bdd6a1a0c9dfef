/**
 * The bwrap sandbox for real (bubblewrap is installed by scripts/ensure-system-deps.sh): what a
 * process inside can see, read and write, checked from inside with a shell, and the probe that
 * makes agent voice fail closed when bwrap is missing.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBwrapSandbox } from "./bwrap";
import { agentLimits } from "./limits";
import type { LocalSandbox, SandboxSpawnRequest } from "./types";

let scratch: string;
let home: string;
let secretFile: string;
let extra: string;
const MARKER = `lwc-sandbox-marker-${process.pid}-${Date.now()}`;
let sandbox: LocalSandbox;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "lwc-bwrap-test-"));
  home = join(scratch, "home");
  mkdirSync(join(home, "work"), { recursive: true });
  secretFile = join(scratch, "secret.env");
  writeFileSync(secretFile, `LWC_SECRET=${MARKER}\n`);
  extra = join(scratch, "extra");
  mkdirSync(extra);
  writeFileSync(join(extra, "shown.txt"), "shown read-only\n");
  sandbox = createBwrapSandbox({ readOnlyPaths: [extra] });
  expect(await sandbox.status("sh")).toEqual({ available: true, limits: "rlimit" });
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const ENV = { HOME: "", PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, LANG: "C.UTF-8" };
const LIMITS = agentLimits();

/** Runs `command args` in the sandbox; resolves with its stdout, stderr and exit code. */
function run(request: Partial<SandboxSpawnRequest> & { command: string; args: string[] }) {
  const { process: child } = sandbox.spawn({ homeDir: home, cwd: join(home, "work"), env: { ...ENV, HOME: home }, limits: LIMITS, ...request });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end();
  return new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) =>
    child.once("close", (code) => resolve({ stdout, stderr, code })),
  );
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

const sh = (script: string) => run({ command: "sh", args: ["-c", script] });

/** Pids of the processes in process group `pgid`, from /proc (field 5 of stat). */
function groupMembers(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return Number(readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ")[2]) === pgid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe("the bwrap sandbox: what it shows", () => {
  it("hides the host's files: not the app's folder, not /tmp, not /etc/passwd, not the server's /proc", async () => {
    process.env.LWC_SANDBOX_TEST_MARKER = MARKER;
    try {
      const { stdout, code } = await sh(
        [
          `cat ${secretFile} 2>/dev/null || echo no-secret-file`,
          // (Its path may exist when the server's node lives inside it, as in this repository's CI: that one file is shown.)
          `cat ${join(process.cwd(), "package.json")} 2>/dev/null || echo no-app-folder`,
          "echo $(ls -A /tmp)",
          "ls /etc/passwd 2>/dev/null || echo no-passwd",
          `cat /proc/${process.pid}/environ 2>/dev/null || echo no-server-proc`,
          "cat /proc/1/environ | tr '\\0' '\\n'",
        ].join("; "),
      );
      expect(code).toBe(0);
      const lines = stdout.trim().split("\n");
      // /tmp holds the scratch folder, and the server's node binary's folder when node lives below /tmp.
      const nodeUnderTmp = process.execPath.startsWith("/tmp/") ? [process.execPath.split("/")[2]!] : [];
      expect(lines.slice(0, 4)).toEqual(["no-secret-file", "no-app-folder", [basename(scratch), ...nodeUnderTmp].sort().join(" "), "no-passwd"]);
      expect(lines[4]).toBe("no-server-proc");
      // PID 1 inside is bwrap: its environment is exactly the process's minimal one, plus the proxy
      // variables that point at the sandbox's relay.
      const proxy = ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy"].map((name) => `${name}=http://127.0.0.1:3128`);
      expect(lines.slice(5).sort()).toEqual([`HOME=${home}`, "LANG=C.UTF-8", `PATH=${ENV.PATH}`, ...proxy].sort());
      expect(stdout).not.toContain(MARKER);
    } finally {
      delete process.env.LWC_SANDBOX_TEST_MARKER;
    }
  });

  it("sees only its own processes, has no capabilities, and can write only its private home", async () => {
    const { stdout } = await sh(
      [
        "ls /proc | grep -c '^[0-9]'",
        "grep CapEff /proc/self/status",
        "touch /outside 2>/dev/null && echo root-writable || echo root-read-only",
        `touch ${extra}/x 2>/dev/null && echo extra-writable || echo extra-read-only`,
        "touch /usr/x 2>/dev/null && echo usr-writable || echo usr-read-only",
        `echo written > ${home}/note && cat ${home}/note`,
        `cat ${extra}/shown.txt`,
      ].join("; "),
    );
    const [processes, caps, ...rest] = stdout.trim().split("\n");
    // bwrap (PID 1), the egress relay (node), sh, and the ls (or grep) of the pipeline.
    expect(Number(processes)).toBeLessThanOrEqual(5);
    expect(caps).toMatch(/^CapEff:\s+0+$/);
    expect(rest).toEqual(["root-read-only", "extra-read-only", "usr-read-only", "written", "shown read-only"]);
  });

  it("runs a JS launcher through a node_modules/.bin link: its package folder and its node are visible", async () => {
    const modules = join(scratch, "install", "node_modules");
    mkdirSync(join(modules, "tool", "bin"), { recursive: true });
    mkdirSync(join(modules, "tool-platform"), { recursive: true });
    mkdirSync(join(modules, ".bin"));
    writeFileSync(join(modules, "tool-platform", "payload.txt"), "the platform package\n");
    const launcher = join(modules, "tool", "bin", "tool.js");
    writeFileSync(
      launcher,
      `#!/usr/bin/env node\nconst { readFileSync } = require("node:fs");\nprocess.stdout.write(readFileSync(${JSON.stringify(join(modules, "tool-platform", "payload.txt"))}, "utf8"));\n`,
    );
    chmodSync(launcher, 0o755);
    symlinkSync("../tool/bin/tool.js", join(modules, ".bin", "tool"));
    const { stdout, stderr, code } = await run({ command: join(modules, ".bin", "tool"), args: [] });
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toBe("the platform package\n");
    // Described the same way: the package tree, env and node, besides the system paths; not /usr whole.
    const limits = sandbox.limits(join(modules, ".bin", "tool"), { ...ENV, HOME: home });
    expect(limits.readOnly).toEqual(expect.arrayContaining([modules, "/usr/bin/env", process.execPath, extra, "/etc/ssl/certs"]));
    expect(limits.readOnly).not.toContain("/usr");
    expect(limits.readOnly.some((path) => path.startsWith(process.cwd()) && path !== process.execPath)).toBe(false);
  });

  it("refuses a command whose folder is the app's folder (it would show the app's .env and everything else): unavailable, with the fix", async () => {
    const wrapperInAppFolder = join(process.cwd(), `.lwc-bwrap-test-wrapper-${process.pid}`);
    writeFileSync(wrapperInAppFolder, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    try {
      const status = await sandbox.status(wrapperInAppFolder);
      expect(status).toEqual({
        available: false,
        reason: `it would show ${process.cwd()}, which holds the app's folder (${process.cwd()})`,
        fix: expect.stringContaining("in a folder of their own"),
      });
      const spawning = () => sandbox.spawn({ command: wrapperInAppFolder, args: [], homeDir: home, cwd: home, env: { ...ENV, HOME: home }, limits: LIMITS });
      expect(spawning).toThrow(expect.objectContaining({ name: "SandboxUnavailableError", reason: expect.stringContaining("the app's folder") }));
    } finally {
      rmSync(wrapperInAppFolder, { force: true });
    }
  });

  it("refuses an extra read-only path that holds the app's folder, or the server user's home", async () => {
    for (const [path, what] of [
      [dirname(process.cwd()), "the app's folder"],
      [homedir(), "the server user's home"],
    ] as const) {
      const wide = createBwrapSandbox({ readOnlyPaths: [path] });
      const status = await wide.status("sh");
      expect(status).toMatchObject({ available: false, reason: expect.stringContaining(`it would show ${path}, which holds ${what}`) });
      expect(status.available === false && status.fix).toContain("LWC_AGENT_SANDBOX_READONLY_PATHS");
    }
  });

});

describe("the bwrap sandbox: its home, /proc and its end", () => {
  it("shows a short list of system paths, not /usr whole: no /usr/src, /usr/local or /usr/include", async () => {
    // The command is `sh`, so its own folder (/usr/bin) is shown too.
    const { stdout, code } = await sh("ls -A /usr; echo ---; ls -A /usr/share");
    expect(code).toBe(0);
    const [usr, share] = stdout.split("---\n").map((part) => part.trim().split("\n"));
    for (const hidden of ["src", "local", "include", "games", "sbin"]) expect(usr, hidden).not.toContain(hidden);
    expect(usr).toEqual(expect.arrayContaining(["bin", "lib", "share"]));
    expect(share!.sort()).toEqual(["ca-certificates", "zoneinfo"].filter((name) => existsSync(join("/usr/share", name))));
  });

  it("its home is a tmpfs of LWC_AGENT_HOME_MB: what the server put there is read-only, a write past the size fails", async () => {
    writeFileSync(join(home, "given.txt"), "from the server\n");
    try {
      const { stdout } = await run({
        command: "sh",
        args: [
          "-c",
          [
            `cat ${home}/given.txt`,
            `echo changed > ${home}/given.txt 2>/dev/null && echo given-writable || echo given-read-only`,
            `head -c 3145728 /dev/zero > ${home}/work/big 2>/dev/null && echo wrote-all || echo home-full`,
            `wc -c < ${home}/work/big`,
          ].join("; "),
        ],
        limits: { ...LIMITS, homeMb: 2 },
      });
      const [given, readOnly, full, written] = stdout.trim().split("\n");
      expect([given, readOnly, full]).toEqual(["from the server", "given-read-only", "home-full"]);
      expect(Number(written)).toBeLessThanOrEqual(2 * 1024 * 1024);
      // Nothing it wrote reached the host's folder.
      expect(existsSync(join(home, "work", "big"))).toBe(false);
    } finally {
      rmSync(join(home, "given.txt"), { force: true });
    }
  });

  it("covers the host kernel's parts of /proc (kallsyms, kpagecount, cmdline, …) and keeps what codex reads (meminfo, its own status)", async () => {
    const { stdout } = await sh(
      [
        "for f in kallsyms kpagecount kcore cmdline iomem; do head -c 1 /proc/$f >/dev/null 2>&1 && echo $f-readable || echo $f-covered; done",
        "ls -A /proc/acpi 2>/dev/null | wc -l",
        "head -n 1 /proc/meminfo | cut -d: -f1",
        "grep -c ^Name: /proc/self/status",
      ].join("; "),
    );
    const lines = stdout.trim().split("\n");
    expect(lines.slice(0, 5)).toEqual(["kallsyms-covered", "kpagecount-covered", "kcore-covered", "cmdline-covered", "iomem-covered"]);
    expect(lines.slice(5)).toEqual(["0", "MemTotal", "1"]);
  });

  it("ends everything inside with teardown(), also what the command started, and its egress proxy", async () => {
    const handle = sandbox.spawn({ command: "sh", args: ["-c", "sleep 60 & sleep 60"], homeDir: home, cwd: home, env: { ...ENV, HOME: home }, limits: LIMITS });
    const pgid = handle.process.pid!;
    const egress = readdirSync(home).filter((name) => name.startsWith("egress-"));
    expect(egress).toHaveLength(1);
    const exited = new Promise((resolve) => handle.process.once("exit", resolve));
    // The relay is in the sandbox's process group, as everything inside is (once bwrap has started it).
    const isRelay = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("relay.cjs");
      } catch {
        return false;
      }
    };
    await expect.poll(() => groupMembers(pgid).some(isRelay), { timeout: 10_000 }).toBe(true);
    handle.teardown();
    await exited;
    // The whole process group (bwrap, its PID 1, the relay, sh, both sleeps) goes; the OS has no
    // event for the last member leaving, so poll with a deadline.
    const deadline = Date.now() + 5_000;
    while (groupExists(pgid)) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The proxy closed with it: its folder (socket and relay) is gone.
    await expect.poll(() => existsSync(join(home, egress[0]!))).toBe(false);
  });
});

// The networked sandbox's test servers, and helpers that run a program inside it.
const BIG_BODY_BYTES = 4 * 1024 * 1024;
let upstream: Server;
let upstreamPort: number;
let service: TcpServer;
let servicePort: number;
let abstractService: TcpServer;
const abstractName = `lwc-bwrap-test-${process.pid}-${Date.now()}`;
let serviceConnections = 0;
const refused: string[] = [];
let networked: LocalSandbox;

/** Runs `command args` in the networked sandbox; resolves with its stdout, stderr and exit code. */
async function runNetworked(command: string, args: string[]) {
  const { process: child } = networked.spawn({ command, args, homeDir: home, cwd: home, env: { ...ENV, HOME: home }, limits: LIMITS });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end();
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  return { stdout, stderr, code };
}

/** What a node program inside sees of the network, as JSON. */
async function probeInside(): Promise<{
  listening: string[];
  abstractSockets: string[];
  interfaces: string[];
  direct: string;
  allowed: string;
  refusedStatus: string;
}> {
  const program = `
    const fs = require("node:fs"), net = require("node:net"), http = require("node:http");
    const listening = ["tcp", "tcp6"].flatMap((file) => fs.readFileSync("/proc/net/" + file, "utf8").split("\\n").slice(1)
      .map((line) => line.trim().split(/\\s+/)).filter((f) => f[3] === "0A").map((f) => f[1]));
    const abstractSockets = fs.readFileSync("/proc/net/unix", "utf8").split("\\n").filter((l) => l.includes("@")).map((l) => l.trim().split(/\\s+/).pop());
    const interfaces = fs.readFileSync("/proc/net/dev", "utf8").split("\\n").slice(2).map((l) => l.trim().split(":")[0]).filter(Boolean);
    const proxy = new URL(process.env.HTTP_PROXY || "http://127.0.0.1:1");
    const direct = new Promise((resolve) => net.connect(${servicePort}, "127.0.0.1").on("data", (d) => resolve("reached: " + d.toString().trim())).on("error", (e) => resolve(e.code)));
    const allowed = new Promise((resolve) => http.get({ host: proxy.hostname, port: proxy.port, path: "http://127.0.0.1:${upstreamPort}/models", agent: false },
      (r) => { let t = ""; r.on("data", (c) => (t += c)); r.on("end", () => resolve(r.statusCode + " " + t)); }).on("error", (e) => resolve(e.code)));
    const refusedStatus = new Promise((resolve) => http.request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: "127.0.0.1:${servicePort}", agent: false })
      .on("connect", (r, socket) => { socket.destroy(); resolve(String(r.statusCode)); }).on("response", (r) => resolve(String(r.statusCode))).on("error", (e) => resolve(e.code)).end());
    Promise.all([direct, allowed, refusedStatus]).then(([direct, allowed, refusedStatus]) =>
      process.stdout.write(JSON.stringify({ listening, abstractSockets, interfaces, direct, allowed, refusedStatus })));
  `;
  const { process: child } = networked.spawn({ command: process.execPath, args: ["-e", program], homeDir: home, cwd: home, env: { ...ENV, HOME: home }, limits: LIMITS });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end();
  const code = await new Promise((resolve) => child.once("close", resolve));
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(stdout);
}

describe("its own network", () => {
  beforeAll(async () => {
    upstream = createServer((request, response) =>
      response.end(request.url === "/big" ? Buffer.alloc(BIG_BODY_BYTES, "a") : `upstream saw ${request.method} ${request.url}`),
    );
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    upstreamPort = (upstream.address() as AddressInfo).port;
    // A loopback service of the host (as Redis would be), and an abstract unix socket.
    service = createTcpServer((socket) => {
      serviceConnections += 1;
      socket.end("+PONG\r\n");
    });
    await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
    servicePort = (service.address() as AddressInfo).port;
    abstractService = createTcpServer(() => undefined);
    await new Promise<void>((resolve) => abstractService.listen(`\0${abstractName}`, resolve));
    networked = createBwrapSandbox({ network: { allow: [{ host: "127.0.0.1", port: upstreamPort }], onRefused: (request) => refused.push(request) } });
    expect(await networked.status(process.execPath)).toEqual({ available: true, limits: "rlimit" });
  });

  afterAll(async () => {
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
    await new Promise((resolve) => service.close(resolve));
    await new Promise((resolve) => abstractService.close(resolve));
  });

  it("shows only its own sockets: /proc/net lists the relay's listener and none of the host's", async () => {
    const inside = await probeInside();
    const hex = (port: number) => `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
    // Only the relay listens (127.0.0.1:3128); the host's listeners (the upstream, the service) are not there.
    expect(inside.listening).toEqual([hex(3128)]);
    expect(inside.abstractSockets).not.toContain(`@${abstractName}`);
    expect(inside.interfaces).toEqual(["lo"]);
  });

  it("cannot connect to a loopback service of the host; through the proxy it reaches only the allowed upstream", async () => {
    refused.length = 0;
    const inside = await probeInside();
    expect(inside.direct).toBe("ECONNREFUSED");
    expect(inside.allowed).toBe("200 upstream saw GET /models");
    expect(inside.refusedStatus).toBe("403");
    expect(refused).toEqual([`CONNECT 127.0.0.1:${servicePort}`]);
    expect(serviceConnections).toBe(0);
  });

  it("under the process limits (applied once the command runs, as after initialize) the relay still carries its connections", async () => {
    // The program inside is node too: --jitless keeps its own data under the cap (see the relay's command line).
    const program = `
      const http = require("node:http");
      const proxy = new URL(process.env.HTTP_PROXY);
      const get = () => new Promise((resolve) => http.get({ host: proxy.hostname, port: proxy.port, path: "http://127.0.0.1:${upstreamPort}/big", agent: false },
        (r) => { let n = 0; r.on("data", (c) => (n += c.length)); r.on("end", () => resolve(r.statusCode + " " + n)); }).on("error", (e) => resolve(e.code)));
      process.stdin.once("data", async () => {
        const answers = [];
        for (let i = 0; i < 20; i++) answers.push(await get());
        process.stdout.write(JSON.stringify(answers));
      });
      process.stdout.write("ready\\n");
    `;
    const handle = networked.spawn({ command: process.execPath, args: ["--jitless", "-e", program], homeDir: home, cwd: home, env: { ...ENV, HOME: home }, limits: LIMITS });
    let stdout = "";
    let stderr = "";
    handle.process.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    handle.process.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      handle.process.once("exit", (code, signal) => resolve({ code, signal })),
    );
    // Limited once the program runs (as codex is, once it answered initialize), then it uses the network.
    await new Promise<void>((resolve) => handle.process.stdout.once("data", () => resolve()));
    await handle.applyLimits();
    handle.process.stdin.end("go\n");
    const ended = await exit;
    expect({ ...ended, stderr, exceeded: handle.exceededLimit(ended, stderr) }).toEqual({ code: 0, signal: null, stderr: "", exceeded: undefined });
    expect(JSON.parse(stdout.slice("ready\n".length))).toEqual(Array.from({ length: 20 }, () => `200 ${BIG_BODY_BYTES}`));
  });

  it("leaves the command's stdio blocking after carrying connections (codex writes a JSON-RPC line of megabytes in one go)", async () => {
    // The relay shares codex's stdout and stderr (the same open files): had it made them non-blocking
    // (node does, for its own process.stdout and process.stderr once they are first used), a write
    // larger than the socket's buffer would fail with EAGAIN and a long JSON-RPC line would be cut off.
    // The program inside is node too: it sets its own stdio back to blocking first, makes three
    // requests one after the other (the relay closes the earlier ones meanwhile), and reads the
    // flags before it exits (node puts its stdio's flags back at exit).
    const program = `
      const fs = require("node:fs"), http = require("node:http");
      for (const stream of [process.stdout, process.stderr]) stream._handle.setBlocking(true);
      const proxy = new URL(process.env.HTTP_PROXY);
      const get = () => new Promise((resolve) =>
        http.get({ host: proxy.hostname, port: proxy.port, path: "http://127.0.0.1:${upstreamPort}/big", agent: false }, (r) => r.resume().on("end", resolve)));
      get().then(get).then(get).then(() =>
        fs.writeSync(1, [0, 1, 2].map((fd) => /^flags:\\s+(\\d+)/m.exec(fs.readFileSync("/proc/self/fdinfo/" + fd, "utf8"))[1]).join(" ")));
    `;
    const { stdout, stderr, code } = await runNetworked(process.execPath, ["--jitless", "-e", program]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const flags = stdout.trim().split(" ").map((value) => Number.parseInt(value, 8));
    expect(flags).toHaveLength(3);
    const O_NONBLOCK = 0o4000;
    expect(flags.map((value) => (value & O_NONBLOCK) === 0)).toEqual([true, true, true]);
  });

  it("describes the same: its own namespace, and what it may reach", () => {
    expect(networked.limits("sh", ENV).network).toEqual({ namespace: "own", reachable: [`127.0.0.1:${upstreamPort}`] });
  });
});

describe("limits of the processes inside", () => {
  /**
   * Starts `script` under `limits`, as codex is: the limits are applied once the command runs (past
   * the egress relay's start, as after initialize); it waits for a line on stdin, sent after that.
   */
  async function underLimits(script: string, limits: Partial<typeof LIMITS>) {
    const handle = sandbox.spawn({
      command: "sh",
      args: ["-c", `echo ready; read go; ${script}`],
      homeDir: home,
      cwd: home,
      env: { ...ENV, HOME: home },
      limits: { ...LIMITS, ...limits },
    });
    let stdout = "";
    let stderr = "";
    const running = new Promise<void>((resolve) => handle.process.stdout.once("data", () => resolve()));
    handle.process.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    handle.process.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      handle.process.once("exit", (code, signal) => resolve({ code, signal })),
    );
    await running;
    await handle.applyLimits();
    handle.process.stdin.end("go\n");
    const ended = await exit;
    return { ...ended, stdout: stdout.replace(/^ready\n/, ""), stderr, exceeded: handle.exceededLimit(ended, stderr) };
  }

  it("CPU time: a process that spins past LWC_AGENT_CPU_SECONDS is ended, and the cause is named", async () => {
    const outcome = await underLimits("while :; do :; done", { cpuSeconds: 1 });
    expect(outcome).toMatchObject({ code: 152, exceeded: "cpu" });
  });

  it("memory: an allocation past LWC_AGENT_MEMORY_MB fails (rlimit) or ends the process (cgroup)", async () => {
    // 96 MB: the egress relay, limited too, holds about 51 MB of data (sandbox-network.ts).
    const outcome = await underLimits("x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo ${#x}", { memoryMb: 96 });
    expect(outcome.stdout.trim()).not.toBe("200000000");
    expect(outcome.code).not.toBe(0);
  });

  it("a process that ends on its own ends with no limit named", async () => {
    const outcome = await underLimits("echo done", {});
    expect(outcome).toMatchObject({ code: 0, stdout: "done\n", exceeded: undefined });
  });
});

describe("fail closed", () => {
  it("a missing bwrap makes the sandbox unavailable, with the fix to apply", async () => {
    const missing = createBwrapSandbox({ bwrapPath: join(scratch, "no-such-bwrap") });
    const status = await missing.status("sh");
    expect(status).toMatchObject({ available: false, reason: expect.stringContaining("not found") });
    expect(status.available === false && status.fix).toContain("apt-get install bubblewrap");
    expect(() => missing.spawn({ command: "sh", args: [], homeDir: home, cwd: home, env: ENV, limits: LIMITS })).toThrow(/not available/);
  });

  it("a host that gives no network namespace (here: a bwrap refusing --unshare-net) makes the sandbox unavailable, naming the network namespace", async () => {
    const noNetwork = join(scratch, "bwrap-without-netns");
    writeFileSync(
      noNetwork,
      `#!/bin/sh\nfor arg in "$@"; do [ "$arg" = --unshare-net ] && { echo "bwrap: Creating new namespace failed: Operation not permitted" >&2; exit 1; }; done\nexec bwrap "$@"\n`,
      { mode: 0o755 },
    );
    const status = await createBwrapSandbox({ bwrapPath: noNetwork }).status("sh");
    expect(status).toMatchObject({ available: false, reason: expect.stringContaining("Creating new namespace failed") });
    expect(status.available === false && status.fix).toContain("network namespace of its own");
  });

  it("a relay that cannot run inside (here: the server's node replaced by an empty file) is unavailable, with the relay's fix", async () => {
    const empty = join(scratch, "empty-node");
    writeFileSync(empty, "");
    const hidingNode = join(scratch, "bwrap-hiding-node");
    writeFileSync(
      hidingNode,
      [
        `#!${process.execPath}`,
        "const args = process.argv.slice(2);",
        `for (let i = 0; i + 2 < args.length; i++) if (args[i] === "--ro-bind" && args[i + 2] === ${JSON.stringify(process.execPath)}) args[i + 1] = ${JSON.stringify(empty)};`,
        'process.exit(require("node:child_process").spawnSync("bwrap", args, { stdio: "inherit" }).status ?? 1);',
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    const status = await createBwrapSandbox({ bwrapPath: hidingNode }).status("sh");
    expect(status).toMatchObject({ available: false, reason: expect.stringContaining(process.execPath) });
    expect(status.available === false && status.fix).toContain("egress relay");
  });

  it("a bwrap that cannot build the sandbox (here: an extra path that does not exist) is unavailable too", async () => {
    const broken = createBwrapSandbox({ readOnlyPaths: [join(scratch, "does-not-exist")] });
    const status = await broken.status("sh");
    expect(status).toMatchObject({ available: false, reason: expect.stringContaining("does-not-exist") });
    expect(existsSync(join(scratch, "does-not-exist"))).toBe(false);
  });
});
