/**
 * An old Node.js is refused in one clear line: scripts/check-node.mjs runs first in `npm start`,
 * `npm run dev` and `npm run demo`; `.npmrc` makes `npm install`/`npm ci` refuse it too
 * (engine-strict), and `.nvmrc` names the version to install. The check is run here with a faked
 * version (its argument), the way it runs under an old Node.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const packageJson = JSON.parse(read("package.json")) as { engines: { node: string }; scripts: Record<string, string> };
const CHECK = "node scripts/check-node.mjs && ";

function check(version: string) {
  const run = spawnSync(process.execPath, ["scripts/check-node.mjs", version], { cwd: root, encoding: "utf8" });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("scripts/check-node.mjs", () => {
  it("refuses a Node older than engines.node with one line naming both versions and the fix", () => {
    expect(packageJson.engines.node).toBe(">=22.13");
    for (const old of ["20.11.0", "v18.20.4", "22.12.0"]) {
      const run = check(old);
      expect(run.code, old).toBe(1);
      expect(run.stdout).toBe("");
      const lines = run.stderr.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(
        `This app needs Node.js >=22.13, and this is Node.js ${old.replace(/^v/, "")}: install Node 24 (\`nvm install\` reads .nvmrc) and run it again.`,
      );
    }
  });

  it("lets engines.node's own version and newer ones through silently, this Node included", () => {
    for (const fine of ["22.13.0", "22.14.1", "24.0.0", "v24.21.0", process.versions.node]) {
      expect(check(fine), fine).toEqual({ code: 0, stdout: "", stderr: "" });
    }
  });

  it("says so when the version it is given is not one", () => {
    const run = check("twenty");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('"twenty" is not a Node.js version');
  });
});

describe("where the check runs", () => {
  it.each(["start", "dev", "demo"])("npm run %s runs it first", (script) => {
    expect(packageJson.scripts[script]?.startsWith(CHECK)).toBe(true);
  });

  it("npm start still ends in `exec next start`, so a signal to npm's shell reaches the server itself", () => {
    expect(packageJson.scripts.start).toBe(`${CHECK}exec next start`);
  });

  it(".nvmrc names Node 24 and .npmrc makes npm refuse an engine mismatch", () => {
    expect(read(".nvmrc")).toBe("24\n");
    expect(read(".npmrc").split("\n")).toContain("engine-strict=true");
  });
});
