/**
 * docs/embedding.md, followed on a fresh create-next-app skeleton (test-support/existing-next-app/):
 * the guide's marked blocks are run (the shell ones) or written (the files) as they stand, the app
 * is built with `next build` on this repository's node_modules (hard-linked) and served by
 * `next start`, and a person signs in against the mock provider over HTTP under the guide's
 * LWC_API_BASE_PATH. Nothing leaves 127.0.0.1; every process is ended by its group's pid.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV_VARIABLES } from "@/lib/env-options";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { freePort } from "@/test-support/free-port";
import { TEST_SECRET } from "./cluster";
import { responsesBody, SessionClient } from "./session-client";

const projectRoot = join(import.meta.dirname, "..", "..");
const guide = readFileSync(join(projectRoot, "docs", "embedding.md"), "utf8");
const BUILD_TIMEOUT_MS = 15 * 60_000;

/** The code of the fenced block after `<!-- embedding-test: name -->`. */
function block(name: string): string {
  const match = new RegExp(`<!-- embedding-test: ${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\\n\`\`\``).exec(guide);
  if (!match) throw new Error(`docs/embedding.md has no block marked "${name}"`);
  return match[1]!;
}

/** NAME=value lines of a shell block, comments dropped. */
function assignments(code: string): Map<string, string> {
  const pairs = [...code.matchAll(/^([A-Z][A-Z0-9_]*)=(\S*)/gm)].map((match) => [match[1]!, match[2]!] as const);
  return new Map(pairs);
}

/** The environment of a production build or server: this process's, without any setting of ours (the test gives those). */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(LWC_|UPSTASH_|KV_|NEXT_|__NEXT)/.test(name)) env[name] = value;
  }
  return { ...env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...extra };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Ends a detached child's whole process group (next build's and next start's workers too) and awaits its exit. */
async function endGroup(child: ChildProcess | undefined): Promise<void> {
  if (child?.pid === undefined) return;
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // The group is already gone.
  }
  await exited;
}

/** Runs `next <args>` in the app's folder as its own process group; keeps its output. */
function runNext(app: string, args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ["node_modules/next/dist/bin/next", ...args], {
    cwd: app,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let log = "";
  child.stdout!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  return { child, output: () => log };
}

/** Every file below `dir` whose name ends with one of `endings`. */
function filesBelow(dir: string, endings: string[]): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => endings.some((ending) => path.endsWith(ending)) && statSync(path).isFile());
}

let mock: MockUpstream;
let app: string;
let apiBase: string;
let build: ChildProcess | undefined;
let server: ChildProcess | undefined;
let serverOutput: () => string = () => "";
let baseUrl: string;

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  app = await mkdtemp(join(tmpdir(), "lwc-embedding-"));
  await cp(join(projectRoot, "test-support", "existing-next-app"), app, { recursive: true });

  // Step 1 and the styles: the guide's shell blocks, run from this repository with APP set.
  for (const name of ["copy", "styles"]) {
    const result = spawnSync("bash", ["-euo", "pipefail", "-c", block(name)], { cwd: projectRoot, env: { ...process.env, APP: app }, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`the guide's "${name}" block failed: ${result.stderr}`);
  }
  // Steps 4 to 6: the guide's files, written as they stand.
  for (const file of ["next.config.ts", "proxy.ts", "app/chat/page.tsx"]) {
    await mkdir(dirname(join(app, file)), { recursive: true });
    await writeFile(join(app, file), `${block(file)}\n`);
  }
  apiBase = assignments(block("env")).get("LWC_API_BASE_PATH") ?? "";

  // Step 2 without the network: this repository's node_modules, hard-linked (Turbopack follows no
  // symlink out of the project), hold every package the guide installs.
  const linked = spawnSync("cp", ["-al", join(projectRoot, "node_modules"), join(app, "node_modules")]);
  if (linked.status !== 0) throw new Error(`cp -al node_modules failed: ${linked.stderr.toString()}`);

  // Step 7. LWC_API_BASE_PATH is a build-time setting: given to the build only.
  const building = runNext(app, ["build"], cleanEnv({ LWC_API_BASE_PATH: apiBase }));
  build = building.child;
  const buildCode = await new Promise<number | null>((resolve) => building.child.once("exit", (code) => resolve(code)));
  if (buildCode !== 0) throw new Error(`next build failed (${buildCode}):\n${building.output().slice(-4000)}`);

  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const starting = runNext(
    app,
    ["start", "-p", String(port), "-H", "127.0.0.1"],
    cleanEnv({
      LWC_SECRET: TEST_SECRET,
      LWC_ISSUER_URL: mock.issuer,
      LWC_CODEX_BASE_URL: mock.codexBaseUrl,
      LWC_ALLOW_MEMORY_STORE: "1",
    }),
  );
  server = starting.child;
  serverOutput = starting.output;
  const exited = new Promise<never>((_, reject) => starting.child.once("exit", (code) => reject(new Error(`next start exited with ${code}:\n${starting.output()}`))));
  exited.catch(() => undefined);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const healthy = await Promise.race([fetch(`${baseUrl}/api/health`).then((reply) => reply.ok, () => false), exited]);
    if (healthy) break;
    if (Date.now() > deadline) throw new Error(`next start did not become healthy:\n${starting.output()}`);
    // Polling a condition (the server listening), not waiting in place of an event.
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, BUILD_TIMEOUT_MS + 120_000);

afterAll(async () => {
  await endGroup(server);
  await endGroup(build);
  await mock?.close();
  if (app) await rm(app, { recursive: true, force: true });
}, 60_000);

describe("docs/embedding.md on a fresh create-next-app", () => {
  it("moves the API with LWC_API_BASE_PATH and names only variables the app reads", () => {
    expect(apiBase).toBe("/api/chatgpt");
    for (const name of assignments(block("env")).keys()) expect(ENV_VARIABLES, name).toContain(name);
  });

  it("installs exactly the packages the copied files import, at this repository's versions", () => {
    const rootPackage = JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    const listed = new Map(
      [...block("install").matchAll(/(@?[a-z0-9][a-z0-9._-]*(?:\/[a-z0-9._-]+)?)@(\d[^\s\\]*)/g)].map((match) => [match[1]!, match[2]!] as const),
    );
    const imported = new Set<string>();
    const sources = ["lib", "components", "app"].flatMap((dir) => filesBelow(join(app, dir), [".ts", ".tsx"]));
    for (const file of [...sources, join(app, "instrumentation.ts"), join(app, "proxy.ts")]) {
      for (const { fileName: specifier } of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
        if (specifier.startsWith(".") || specifier.startsWith("node:") || specifier.startsWith("@/")) continue;
        const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;
        if (!["next", "react", "react-dom"].includes(name)) imported.add(name);
      }
    }
    expect([...listed.keys()].sort()).toEqual([...imported].sort());
    for (const [name, version] of listed) {
      const installed = (JSON.parse(readFileSync(join(projectRoot, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
      expect(version, name).toBe(rootPackage.dependencies[name] ?? installed);
      expect(installed, name).toBe(version);
    }
  });

  it("signs in over HTTP at /api/chatgpt and streams a reply; the route folder's own path is not the API", async () => {
    const user = new SessionClient(apiBase);
    await user.signIn(baseUrl, mock, { accountId: "acct_embedding", email: "embedding@example.com" });
    const session = await user.json<{ status: string; user: { email: string } }>(baseUrl, "/session");
    expect(session.body).toMatchObject({ status: "authenticated", user: { email: "embedding@example.com" } });
    // The page's proxy does not touch the API: no page CSP on its replies.
    expect(session.headers.get("content-security-policy")).toBeNull();

    const reply = await user.request(baseUrl, "/responses", { method: "POST", headers: { "content-type": "application/json" }, body: responsesBody("hello from an existing app") });
    const text = await reply.text();
    expect(reply.status, text.slice(0, 300)).toBe(200);
    expect(text).toContain("response.completed");
    const forwarded = mock.requests({ path: "/backend-api/codex/responses" }).filter((request) => request.headers["chatgpt-account-id"] === "acct_embedding");
    expect(forwarded).toHaveLength(1);

    const atFolder = new SessionClient("/api/provider");
    atFolder.cookie = user.cookie;
    const folderReply = await atFolder.request(baseUrl, "/session");
    expect(folderReply.status).toBe(404);
    await folderReply.arrayBuffer();
  });

  it("sends /api/chatgpt/responses to the static route (the fast path) through the build's one rewrite", async () => {
    const manifest = JSON.parse(readFileSync(join(app, ".next", "routes-manifest.json"), "utf8")) as {
      rewrites: { beforeFiles: unknown[]; afterFiles: { source: string; destination: string }[]; fallback: unknown[] };
      staticRoutes: { page: string }[];
    };
    expect(manifest.rewrites.afterFiles.map(({ source, destination }) => ({ source, destination }))).toEqual([
      { source: "/api/chatgpt/:path+", destination: "/api/provider/:path+" },
    ]);
    expect(manifest.staticRoutes.map((route) => route.page)).toContain("/api/provider/responses");
    // And the handler answers there: its own 405 with Allow.
    const reply = await fetch(`${baseUrl}${apiBase}/responses`);
    expect(reply.status).toBe(405);
    expect(reply.headers.get("allow")).toBe("POST, OPTIONS");
    await reply.arrayBuffer();
  });

  it("serves the chat page with a CSP nonce and code that calls /api/chatgpt; the app's own page and rule stay as they were", async () => {
    const chat = await fetch(`${baseUrl}/chat`);
    expect(chat.status).toBe(200);
    const policy = chat.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toBeTruthy();
    expect(await chat.text()).toContain(`nonce="${nonce}"`);

    const home = await fetch(`${baseUrl}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get("content-security-policy")).toBeNull();
    expect(await home.text()).toContain("An existing app");
    const moved = await fetch(`${baseUrl}/old-home`, { redirect: "manual" });
    expect(moved.status).toBe(307);
    expect(new URL(moved.headers.get("location")!, baseUrl).pathname).toBe("/");

    // The page's code learned the path at build time (next.config.ts's env).
    const chunks = filesBelow(join(app, ".next", "static"), [".js"]).map((file) => readFileSync(file, "utf8"));
    expect(chunks.some((code) => code.includes(`"${apiBase}"`))).toBe(true);
  });

  it("leaves no process behind once the server is stopped", async () => {
    const pid = server!.pid!;
    await endGroup(server);
    expect(isAlive(pid)).toBe(false);
    expect(() => process.kill(-pid, 0)).toThrow();
    expect(serverOutput()).not.toMatch(/Error:/);
  });
});
