/**
 * docs/embedding.md, followed on the app today's create-next-app makes: the generator at the version
 * package.json pins (a development dependency) makes it with its defaults (cacheComponents, the
 * Tailwind rule for Turbopack), npm installs its packages and the guide's, the guide's marked blocks
 * are run (the shell ones), merged (next.config.ts) or written (the files) as they stand, the app is
 * built with `next build` on its own node_modules and served by `next start`, and a person signs in
 * against the mock provider over HTTP under the guide's LWC_API_BASE_PATH; then a Vercel build
 * without LWC_SECRET shows the deploy stopping at its build. Only the two installs
 * reach the npm registry; everything else stays on 127.0.0.1. Every process is ended by its group's
 * pid.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
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
const rootPackage = JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
/** The pinned generator (docs/embedding.md says how to move the pin). */
const CREATE_NEXT_APP_VERSION = rootPackage.devDependencies["create-next-app"]!;
const CREATE_NEXT_APP = join(projectRoot, "node_modules", "create-next-app", "dist", "index.js");
const SETUP_TIMEOUT_MS = 15 * 60_000;

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

/** This process's environment without any setting of ours or of the npm run that started it. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(LWC_|UPSTASH_|KV_|NEXT_|__NEXT|npm_|NODE_ENV$|VERCEL)/i.test(name)) env[name] = value;
  }
  return { ...env, NEXT_TELEMETRY_DISABLED: "1" };
}

/** The environment of a production build or server (the test gives our settings). */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  return { ...baseEnv(), NODE_ENV: "production", ...extra };
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

/** Runs a command as its own process group; keeps its output. */
function run(command: string, args: string[], cwd: string, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  // The installs get no NODE_ENV on purpose, which NodeJS.ProcessEnv (as Next types it) insists on.
  const child = spawn(command, args, { cwd, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let log = "";
  child.stdout!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  return { child, output: () => log };
}

/** Runs a command to its end (ended by its group's pid in afterAll if the test stops first). */
async function runToEnd(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const started = run(command, args, cwd, env);
  current = started.child;
  const code = await new Promise<number | null>((resolve) => started.child.once("exit", (exitCode) => resolve(exitCode)));
  current = undefined;
  return { code, output: started.output() };
}

/** The lines that name an error (a long build output's warnings would push them out of its tail). */
function errorLines(output: string): string {
  const lines = output.split("\n").filter((line) => /error|failed/i.test(line));
  return lines.length > 0 ? `${lines.slice(0, 20).join("\n")}\n…\n` : "";
}

/** A step of the setup: throws with its output unless it exits 0. */
async function step(name: string, command: string, args: string[], cwd: string, env: Record<string, string>): Promise<void> {
  const { code, output } = await runToEnd(command, args, cwd, env);
  if (code !== 0) throw new Error(`${name} failed (${code}):\n${errorLines(output)}${output.slice(-4000)}`);
}

/** Runs `next <args>` with the app's own Next.js. */
function runNext(args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string } {
  return run(process.execPath, ["node_modules/next/dist/bin/next", ...args], app, env);
}

/** Puts `addition` after the line `anchor` of `text`; throws when the line is not there. */
function insertAfterLine(text: string, anchor: string, addition: string, file: string): string {
  const lines = text.split("\n");
  const at = lines.findIndex((line) => line.trim() === anchor);
  if (at === -1) throw new Error(`${file} has no line "${anchor}": create-next-app changed it; update docs/embedding.md`);
  return [...lines.slice(0, at + 1), addition, ...lines.slice(at + 1)].join("\n");
}

/** The version of a package installed in `root`'s node_modules. */
function readInstalledVersion(root: string, name: string): string {
  return (JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
}

/** Every file below `dir` whose name ends with one of `endings`. */
function filesBelow(dir: string, endings: string[]): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => endings.some((ending) => path.endsWith(ending)) && statSync(path).isFile());
}

let mock: MockUpstream;
let workDir: string;
let app: string;
let apiBase: string;
let generatedConfig: string;
let current: ChildProcess | undefined;
let server: ChildProcess | undefined;
let serverOutput: () => string = () => "";
let baseUrl: string;

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  workDir = await mkdtemp(join(tmpdir(), "lwc-embedding-"));
  app = join(workDir, "host");
  // The installs run as a person's shell would: no NODE_ENV (npm would leave out devDependencies).
  const shellEnv = baseEnv();

  // The app, made by the pinned create-next-app with its defaults; its saved preferences live in a
  // folder of this run, so a developer's own answers to earlier runs do not change it.
  await step("create-next-app", process.execPath, [CREATE_NEXT_APP, "host", "--yes", "--use-npm", "--disable-git"], workDir, {
    ...shellEnv,
    XDG_CONFIG_HOME: join(workDir, "config"),
  });
  generatedConfig = await readFile(join(app, "next.config.ts"), "utf8");

  // The one change the guide does not make: no next/font/google in the root layout, which downloads
  // fonts from Google at build time (this test reaches nothing but the npm registry).
  const layoutPath = join(app, "app", "layout.tsx");
  const layout = await readFile(layoutPath, "utf8");
  const withoutFonts = layout
    .replace(/^import \{[^}]*\} from "next\/font\/google";\n/m, "")
    .replace(/^const \w+ = \w+\(\{[^}]*\}\);\n\n/gm, "")
    .replace(/className=\{`(?:\$\{\w+\.variable\} )+([^`]*)`\}/, 'className="$1"');
  if (withoutFonts.includes("next/font") || withoutFonts.includes(".variable")) {
    throw new Error(`create-next-app's app/layout.tsx changed; update the font removal:\n${layout}`);
  }
  await writeFile(layoutPath, withoutFonts);

  // Steps 1, 2 and the styles: the guide's shell blocks, as they stand (copy and styles from this
  // repository with APP set, the install in the app).
  for (const name of ["copy", "styles"]) await step(`the guide's "${name}" block`, "bash", ["-euo", "pipefail", "-c", block(name)], projectRoot, { ...shellEnv, APP: app });
  await step(`the guide's "install" block`, "bash", ["-euo", "pipefail", "-c", block("install")], app, shellEnv);

  // Step 4: the lines merged into create-next-app's next.config.ts where the guide says.
  let config = insertAfterLine(generatedConfig, 'import type { NextConfig } from "next";', block("next.config.ts imports"), "next.config.ts");
  config = insertAfterLine(config, "const nextConfig: NextConfig = {", block("next.config.ts settings"), "next.config.ts");
  await writeFile(join(app, "next.config.ts"), config);
  // Steps 5 and 6: the guide's files, written as they stand (create-next-app makes no proxy.ts).
  if (existsSync(join(app, "proxy.ts"))) throw new Error("create-next-app now makes a proxy.ts: the guide's proxy step must merge");
  for (const file of ["proxy.ts", "app/chat/page.tsx"]) {
    await mkdir(dirname(join(app, file)), { recursive: true });
    await writeFile(join(app, file), `${block(file)}\n`);
  }
  apiBase = assignments(block("env")).get("LWC_API_BASE_PATH") ?? "";

  // Step 7. LWC_API_BASE_PATH is a build-time setting: given to the build only. The build's own
  // environment has no secret and no store: a health answer taken at build time would say so.
  await step("next build", process.execPath, ["node_modules/next/dist/bin/next", "build"], app, cleanEnv({ LWC_API_BASE_PATH: apiBase }));

  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const starting = runNext(
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
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await endGroup(server);
  await endGroup(current);
  await mock?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
}, 60_000);

describe("docs/embedding.md on the app today's create-next-app makes", () => {
  it("starts from create-next-app's defaults: cacheComponents, Tailwind through Turbopack, the pinned Next.js", () => {
    expect(generatedConfig).toMatch(/cacheComponents: true/);
    expect(generatedConfig).toMatch(/@tailwindcss\/turbopack/);
    const appPackage = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(appPackage.dependencies.next).toBe(CREATE_NEXT_APP_VERSION);
    // The guide's merge kept every line create-next-app wrote.
    const merged = readFileSync(join(app, "next.config.ts"), "utf8");
    for (const line of generatedConfig.split("\n")) expect(merged).toContain(line);
  });

  it("moves the API with LWC_API_BASE_PATH and names only variables the app reads", () => {
    expect(apiBase).toBe("/api/chatgpt");
    for (const name of assignments(block("env")).keys()) expect(ENV_VARIABLES, name).toContain(name);
  });

  it("installs exactly the packages the copied files import (and their types), at this repository's versions", () => {
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
    // A package without types of its own needs its @types package, as this repository has it.
    const types = [...imported].map((name) => `@types/${name}`).filter((name) => name in rootPackage.devDependencies);
    expect([...listed.keys()].sort()).toEqual([...imported, ...types].sort());
    const appPackage = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    for (const [name, version] of listed) {
      expect(version, name).toBe(rootPackage.dependencies[name] ?? rootPackage.devDependencies[name] ?? readInstalledVersion(projectRoot, name));
      expect(readInstalledVersion(app, name), name).toBe(version);
      expect(appPackage.dependencies[name] ?? appPackage.devDependencies[name], name).toBe(version);
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

  it("serves the chat page per request with the nonce on every script, styled by Tailwind; create-next-app's page stays as it was", async () => {
    const chat = await fetch(`${baseUrl}/chat`);
    expect(chat.status).toBe(200);
    const policy = chat.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toBeTruthy();
    const html = await chat.text();
    // With 'strict-dynamic' the browser runs only scripts that carry the nonce: a prerendered shell's would not.
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(3);
    expect(scripts.filter((tag) => !tag.includes(`nonce="${nonce}"`))).toEqual([]);
    // The page's code learned the path at build time (next.config.ts's env).
    const chunks = filesBelow(join(app, ".next", "static"), [".js"]).map((file) => readFileSync(file, "utf8"));
    expect(chunks.some((code) => code.includes(`"${apiBase}"`))).toBe(true);
    // Tailwind ran (create-next-app's Turbopack rule survived the merge): our components' classes
    // are rules, and none of Tailwind's own at-rules is left for the browser.
    const stylesheets = [...html.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g)].map((match) => match[1]!);
    expect(stylesheets.length).toBeGreaterThan(0);
    const css = (await Promise.all(stylesheets.map((href) => fetch(new URL(href, baseUrl)).then((reply) => reply.text())))).join("\n");
    expect(css).toContain(".text-muted-foreground");
    expect(css).not.toMatch(/@(source|theme|custom-variant)\b/);

    const home = await fetch(`${baseUrl}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get("content-security-policy")).toBeNull();
    await home.arrayBuffer();
  });

  it("answers /api/health per request: not prerendered, and it reads the server's environment, not the build's", async () => {
    const manifest = JSON.parse(readFileSync(join(app, ".next", "prerender-manifest.json"), "utf8")) as { routes: Record<string, unknown> };
    expect(Object.keys(manifest.routes)).not.toContain("/api/health");
    // The build ran without a secret or LWC_ALLOW_MEMORY_STORE (a snapshot would be degraded); the server has both.
    const reply = await fetch(`${baseUrl}/api/health`);
    expect(await reply.json()).toEqual({ status: "ok", store: "ok", modelAccess: "on", agentVoice: "off" });
  });

  it("leaves no process behind once the server is stopped", async () => {
    const pid = server!.pid!;
    await endGroup(server);
    expect(isAlive(pid)).toBe(false);
    expect(() => process.kill(-pid, 0)).toThrow();
    expect(serverOutput()).not.toMatch(/Error:/);
  });

  // After the server has stopped: this build replaces the app's .next.
  it("on Vercel, stops the build when LWC_SECRET is missing, naming it (a shared store is set)", async () => {
    const { code, output } = await runToEnd(
      process.execPath,
      ["node_modules/next/dist/bin/next", "build"],
      app,
      cleanEnv({ LWC_API_BASE_PATH: apiBase, VERCEL: "1", KV_REST_API_URL: "http://127.0.0.1:9", KV_REST_API_TOKEN: "a-token-for-no-store" }),
    );
    expect(code, output.slice(-3000)).not.toBe(0);
    expect(output).toContain("LWC_SECRET is not set, and on Vercel it must be");
    expect(output).not.toContain("a-token-for-no-store");
  }, SETUP_TIMEOUT_MS);
});
