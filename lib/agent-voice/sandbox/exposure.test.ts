/** The refusal of a sandbox that would show what it must hide: compared as the host resolves paths. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findExposure, protectedPaths } from "./exposure";

const scratch = mkdtempSync(join(tmpdir(), "lwc-exposure-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("findExposure", () => {
  const app = join(scratch, "opt", "app");
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, ".env.production"), "LWC_SECRET=x\n");
  const hidden = [
    { path: app, what: "the app's folder" },
    { path: join(app, ".env.production"), what: "an env file the app read" },
  ];

  it("refuses a shown folder that is, or holds, a hidden one, with the fix for where the path came from", () => {
    expect(findExposure([{ host: join(scratch, "opt"), inside: join(scratch, "opt"), source: "extra" }], hidden)).toEqual({
      reason: `it would show ${join(scratch, "opt")}, which holds the app's folder (${app})`,
      fix: `Remove ${join(scratch, "opt")} from LWC_AGENT_SANDBOX_READONLY_PATHS, or list a folder that holds only what the codex command needs.`,
    });
    expect(findExposure([{ host: app, inside: app, source: "command" }], hidden)?.fix).toContain("in a folder of their own");
    expect(findExposure([{ host: "/", inside: "/", source: "system" }], hidden)?.fix).toBe("Deploy the app outside /: the sandbox shows that system folder to every codex process.");
  });

  it("refuses a shown env file itself, and a link that resolves to a hidden folder", () => {
    const envFile = join(app, ".env.production");
    expect(findExposure([{ host: envFile, inside: envFile, source: "extra" }], hidden)?.reason).toBe(
      `it would show ${envFile}, which holds an env file the app read (${envFile})`,
    );
    const link = join(scratch, "link-to-opt");
    symlinkSync(join(scratch, "opt"), link);
    expect(findExposure([{ host: link, inside: link, source: "extra" }], hidden)?.reason).toContain("which holds the app's folder");
  });

  it("lets a folder inside the app (its node_modules), or beside it, be shown", () => {
    const modules = join(app, "node_modules");
    mkdirSync(modules);
    expect(findExposure([{ host: modules, inside: modules, source: "command" }], hidden)).toBeUndefined();
    expect(findExposure([{ host: join(scratch, "opt", "codex"), inside: join(scratch, "opt", "codex"), source: "extra" }], hidden)).toBeUndefined();
  });
});

describe("protectedPaths", () => {
  it("are the server's working folder and its user's home; env files only once Next (or a server like it) read some", () => {
    const paths = protectedPaths();
    expect(paths.slice(0, 2).map((entry) => entry.what)).toEqual(["the app's folder", "the server user's home"]);
    expect(paths[0]!.path).toBe(process.cwd());
    if (process.env.__NEXT_PROCESSED_ENV !== "true") expect(paths).toHaveLength(2);
  });
});
