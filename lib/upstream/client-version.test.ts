/**
 * One client version everywhere: client-version.json is read by the upstream config, the mock,
 * scripts/ensure-codex.sh (the codex it installs) and the cache-folder helper. These tests fail when
 * any of them stops reading it.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cachedCodexPath } from "@/lib/agent-voice/codex-cache";
import clientVersionFile from "./client-version.json";
import { CLIENT_VERSION, DEFAULT_UPSTREAM, resolveUpstreamConfig } from "./config";

const repo = join(__dirname, "..", "..");
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "lwc-client-version-"));
  folders.push(folder);
  return folder;
}

function writeExecutable(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

/**
 * Runs ensure-codex.sh (from `scriptRoot`) with a home of its own, a fake codex that reports
 * `reports`, and an npm that only notes it was asked to install (so nothing is downloaded).
 */
function runEnsureCodex(scriptRoot: string, installFor: string, reports: string) {
  const home = tempFolder();
  const env = { NODE_ENV: "test" as const, HOME: home, XDG_CACHE_HOME: join(home, "cache"), PATH: `${join(home, "bin")}:${dirname(process.execPath)}:/usr/bin:/bin` };
  const bin = join(env.XDG_CACHE_HOME, "login-with-chatgpt", `codex-${installFor}`, "node_modules", ".bin", "codex");
  writeExecutable(bin, `#!/bin/sh\necho "codex-cli ${reports}"\n`);
  const npmCalled = join(home, "npm-called");
  writeExecutable(join(home, "bin", "npm"), `#!/bin/sh\ntouch "${npmCalled}"\nexit 1\n`);
  const run = spawnSync("bash", [join(scriptRoot, "scripts", "ensure-codex.sh")], { env, encoding: "utf8" });
  return { status: run.status, stdout: run.stdout.trim(), bin, env, npmCalled: existsSync(npmCalled) };
}

describe("the client version", () => {
  it("is the upstream default, and the user agent names it", () => {
    expect(CLIENT_VERSION).toBe(clientVersionFile.clientVersion);
    expect(DEFAULT_UPSTREAM.clientVersion).toBe(CLIENT_VERSION);
    expect(resolveUpstreamConfig().userAgent).toContain(`codex_cli_rs/${CLIENT_VERSION}`);
  });

  it("is the codex ensure-codex.sh keeps, in the folder the app looks in", () => {
    const run = runEnsureCodex(repo, CLIENT_VERSION, CLIENT_VERSION);
    expect(run.status).toBe(0);
    expect(run.npmCalled).toBe(false);
    expect(run.stdout).toBe(run.bin);
    expect(cachedCodexPath(run.env)).toBe(run.bin);
  });

  it("is read by ensure-codex.sh from client-version.json, not written into the script", () => {
    const copy = tempFolder();
    mkdirSync(join(copy, "scripts"));
    mkdirSync(join(copy, "lib", "upstream"), { recursive: true });
    copyFileSync(join(repo, "scripts", "ensure-codex.sh"), join(copy, "scripts", "ensure-codex.sh"));
    writeFileSync(join(copy, "lib", "upstream", "client-version.json"), JSON.stringify({ clientVersion: "9.8.7" }));

    const matching = runEnsureCodex(copy, "9.8.7", "9.8.7");
    expect(matching).toMatchObject({ status: 0, npmCalled: false, stdout: matching.bin });
    // A codex that reports another version is replaced (here the fake npm refuses, so the script fails).
    const stale = runEnsureCodex(copy, "9.8.7", CLIENT_VERSION);
    expect(stale.npmCalled).toBe(true);
    expect(stale.status).not.toBe(0);
  });

  it("is written nowhere else in the scripts and test support (they read it)", () => {
    const grep = spawnSync("git", ["grep", "-n", "-F", CLIENT_VERSION, "--", "scripts", "test-support", "e2e/support"], { cwd: repo, encoding: "utf8" });
    expect(grep.stdout.split("\n").filter(Boolean)).toEqual([]);
  });
});
