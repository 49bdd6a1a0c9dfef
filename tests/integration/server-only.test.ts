/**
 * `import "server-only"` marks every server module, so a client component that reaches one fails the
 * build instead of shipping server code to the browser. The marker throws wherever the
 * `react-server` export condition is off, so it goes exactly where nothing runs without it:
 *
 * - Runs WITH the condition: Next's server side (routes, pages, instrumentation, proxy) and the few
 *   tool entries below, started with `--conditions=react-server` (tsx passes it on to Node).
 * - Runs WITHOUT it: the browser (components/, lib/client/), next.config.ts, Playwright, the mock
 *   upstream and the other tsx scripts. Whatever they load must not carry the marker.
 *
 * A lib module is a server module when no entry of the second kind loads it; each one must start
 * with `import "server-only"`. Vitest aliases the marker to a stub (vitest.config.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileImports, projectRoot, runtimeClosure, sourceFiles } from "@/test-support/import-graph";

/** Tool entries that load server modules, so they run with `--conditions=react-server`. */
const REACT_SERVER_ENTRIES = [
  "scripts/doctor.ts", // npm run doctor; tests/integration/doctor.test.ts
  "scripts/bench/main.ts", // npm run bench
  "scripts/bench/floor.ts", // npm run bench:floor
  "scripts/db-migrate.ts", // npm run db:migrate
  "scripts/bench/history-sync.ts", // npm run bench:history
  "scripts/bench/agent-voice-start.ts", // npm run bench:agent-voice
  "test-support/handler-process.ts", // tests/integration/app-server-restart.test.ts
  "tests/codex-real/app-process.ts", // tests/codex-real/sandbox.test.ts
  "scripts/codex-proxy-report.ts", // run by hand: docs/agent-voice.md#its-own-network
  "scripts/agent-voice-snapshot.ts", // npm run agent-voice:snapshot; tests/codex-real/vercel-backend.test.ts
  "test-support/vercel-reopen-process.ts", // tests/codex-real/vercel-backend.test.ts
];

/** Entries that run without the condition (besides the browser code and Playwright's e2e/ files). */
const PLAIN_ENTRIES = [
  "next.config.ts", // loaded by Next in plain Node
  "drizzle.config.ts", // npm run db:generate
  "lib/history/schema.ts", // read by drizzle-kit, named by path in drizzle.config.ts
  ...readdirSync(projectRoot).filter((name) => /^playwright\..*ts$/.test(name)),
  "scripts/check-node.mjs",
  "scripts/demo.ts",
  "scripts/codex-schema.ts",
  "scripts/codex-lockdown-report.ts",
  "scripts/bench/first-screen.ts",
  "scripts/bench/search.ts",
  "scripts/bench/inline-math.ts",
  "mock-upstream/main.ts",
  "mock-upstream/vercel-sandbox/main.ts",
  "test-support/fake-app-server/fake-app-server.mjs", // the fake codex, spawned by tests
];

const isTest = (file: string) => /\.test\.tsx?$/.test(file);
const browser = [...sourceFiles("components"), ...sourceFiles("lib/client")].filter((file) => !isTest(file));
const plainClosure = runtimeClosure([...browser, ...sourceFiles("e2e"), ...PLAIN_ENTRIES]);
const libModules = sourceFiles("lib").filter((file) => !isTest(file));

describe('import "server-only"', () => {
  it("every server module (lib/ code no browser or plain tool entry loads) starts with it", () => {
    const serverModules = libModules.filter((file) => !plainClosure.has(file));
    expect(serverModules.length).toBeGreaterThan(60);
    expect(serverModules.filter((file) => !fileImports(file).startsServerOnly)).toEqual([]);
  });

  it("nothing the browser or a plain tool entry loads imports it (it would throw there)", () => {
    const marked = [...plainClosure].filter((file) => /\.(ts|tsx|mts|mjs)$/.test(file) && fileImports(file).runtime.includes("server-only"));
    expect(marked).toEqual([]);
  });

  it("every script package.json runs is classified, and those that load server modules pass --conditions=react-server", () => {
    const scripts = (JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    for (const [name, command] of Object.entries(scripts)) {
      for (const match of command.matchAll(/\b(tsx|node)((?: --[\w=-]+)*) ([\w./-]+\.(?:ts|mjs))/g)) {
        const [, , flags, file] = match;
        const reactServer = REACT_SERVER_ENTRIES.includes(file!);
        expect(reactServer || PLAIN_ENTRIES.includes(file!), `npm run ${name}: ${file} is in neither list`).toBe(true);
        expect(flags!.includes("--conditions=react-server"), `npm run ${name}: ${file}`).toBe(reactServer);
      }
    }
  });

  it("every line of ours that starts a react-server entry with tsx passes the condition", () => {
    const launchers = [...sourceFiles("tests"), ...sourceFiles("test-support"), ...sourceFiles("scripts"), ...sourceFiles("e2e")];
    for (const entry of REACT_SERVER_ENTRIES) {
      const [folder, name] = [entry.slice(0, entry.lastIndexOf("/")).split("/").at(-1)!, entry.split("/").at(-1)!];
      for (const file of launchers) {
        for (const line of readFileSync(join(projectRoot, file), "utf8").split("\n")) {
          const startsIt = line.includes("tsx") && line.includes(name) && line.includes(folder) && /spawn|exec|fork/.test(line);
          if (startsIt) expect(line, `${file} starts ${entry}`).toContain("--conditions=react-server");
        }
      }
    }
  });
});
