import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { parseEnv, RENAMED_ENV_VARIABLES } from "./env-options";
import { resolveRealtimeOptions } from "./server/voice/options";
import { CLIENT_VERSION, DEFAULT_UPSTREAM } from "./upstream/config";
import { CODEX_REALTIME_MODEL, DEFAULT_CHATGPT_URL } from "./upstream/realtime";
import { DEFAULT_INSTRUCTIONS } from "./upstream/responses";
import { DEFAULT_DATA_DIR } from "./history/config";

const root = join(import.meta.dirname, "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const VARIABLE = /\b(?:LWC_[A-Z0-9_]+|UPSTASH_REDIS_REST_(?:URL|TOKEN)|KV_REST_API_(?:URL|TOKEN)|DATABASE_URL|POSTGRES_URL)\b/g;

/** The text of one `## ` section of a markdown file, from its heading to the next one. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`no "## ${heading}" section`);
  const end = markdown.indexOf("\n## ", start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

/**
 * Read by this repository's build and benchmarks, never set by a deploy: not in .env.example, and
 * documented on the page of the tooling that sets them.
 */
const TOOLING_ONLY: Record<string, string> = {
  LWC_DIST_DIR: "docs/testing.md",
};

const namesIn = (text: string) => [...new Set(text.match(VARIABLE) ?? [])].sort();

describe("the environment variables are documented alike everywhere", async () => {
  vi.stubEnv("LWC_SECRET", "env-docs-test-secret-0123456789abcdef");
  const { ENV_VARIABLES } = await import("./provider-app");
  vi.unstubAllEnvs();
  const expected = [...ENV_VARIABLES].sort();

  it("knows the variables (the zod schema in lib/env-options.ts and the store's)", () => {
    expect(expected).toContain("LWC_SECRET");
    expect(expected).toContain("LWC_LOGIN_GLOBAL_RATE_LIMIT_PER_MINUTE");
    expect(expected).toContain("KV_REST_API_TOKEN");
  });

  it(".env.example lists each one an adopter may set as NAME=, and none of the repository's tooling", () => {
    const assigned = [...read(".env.example").matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]!);
    expect([...new Set(assigned)].sort()).toEqual(expected.filter((name) => !(name in TOOLING_ONLY)));
  });

  it("documents each tooling variable where the tooling is described", () => {
    for (const [name, page] of Object.entries(TOOLING_ONLY)) {
      expect(expected, name).toContain(name);
      expect(read(page), `${name} in ${page}`).toMatch(new RegExp(`\`${name}(=[^\`]*)?\``));
    }
  });

  it("docs/configuration.md's Variables section names each one", () => {
    expect(namesIn(section(read("docs/configuration.md"), "Variables"))).toEqual(expected);
  });

  it("docs/server.md's Environment variables section names each one", () => {
    expect(namesIn(section(read("docs/server.md"), "Environment variables"))).toEqual(expected);
  });
});

describe("renamed variables are documented under both names", async () => {
  vi.stubEnv("LWC_SECRET", "env-docs-test-secret-0123456789abcdef");
  const { ENV_VARIABLES } = await import("./provider-app");
  vi.unstubAllEnvs();
  const renamed = Object.entries(RENAMED_ENV_VARIABLES);

  it("each new name is a variable of the schema, each old one is not", () => {
    expect(renamed.length).toBeGreaterThan(0);
    for (const [oldName, newName] of renamed) {
      expect(ENV_VARIABLES, newName).toContain(newName);
      expect(ENV_VARIABLES, oldName).not.toContain(oldName);
    }
  });

  it("docs/configuration.md's Renamed variables table pairs each old name with its new one", () => {
    const rows = section(read("docs/configuration.md"), "Renamed variables");
    for (const [oldName, newName] of renamed) expect(rows, oldName).toContain(`| \`${oldName}\` | \`${newName}\` |`);
  });

  it(".env.example and docs/agent-voice.md name each old one", () => {
    for (const page of [".env.example", "docs/agent-voice.md"]) {
      for (const [oldName] of renamed) expect(read(page), `${oldName} in ${page}`).toContain(oldName);
    }
  });
});

/** Defaults the schema leaves to the handler (the variable is simply not passed on) or to Next. */
const DEFAULTS_OUTSIDE_THE_SCHEMA: Record<string, string> = {
  LWC_ISSUER_URL: DEFAULT_UPSTREAM.issuer,
  LWC_CODEX_BASE_URL: DEFAULT_UPSTREAM.codexBaseUrl,
  LWC_CLIENT_VERSION: CLIENT_VERSION,
  LWC_INSTRUCTIONS: DEFAULT_INSTRUCTIONS,
  LWC_REALTIME_MODEL: CODEX_REALTIME_MODEL,
  LWC_CHATGPT_URL: DEFAULT_CHATGPT_URL,
  LWC_REALTIME_TRANSPORTS: [...resolveRealtimeOptions().transports].join(","),
  LWC_DIST_DIR: ".next", // Next's own distDir
  LWC_DATA_DIR: DEFAULT_DATA_DIR,
};

/** The default the code applies to an unset variable, in the variable's own units, or undefined. */
function codeDefault(name: string, parsed: Record<string, unknown>): string | undefined {
  const value = parsed[name];
  if (typeof value === "number" || typeof value === "string") return String(value);
  if (typeof value === "boolean") return value ? "1" : "0";
  return DEFAULTS_OUTSIDE_THE_SCHEMA[name];
}

/** `NAME → the first code span of the Default column`, for each row of a variables table that shows one. */
function documentedDefaults(text: string): Map<string, string> {
  const defaults = new Map<string, string>();
  for (const line of text.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    const name = /^`(LWC_[A-Z0-9_]+)`$/.exec(cells[1] ?? "")?.[1];
    const shown = /^`([^`]+)`/.exec(cells[2] ?? "")?.[1];
    if (name && shown && !shown.includes("{")) defaults.set(name, shown);
  }
  return defaults;
}

describe("the documented defaults are the code's", () => {
  const parsed = parseEnv({}) as Record<string, unknown>;
  const tables = {
    "docs/configuration.md Variables": section(read("docs/configuration.md"), "Variables"),
    "docs/server.md Environment variables": section(read("docs/server.md"), "Environment variables"),
  };

  for (const [where, text] of Object.entries(tables)) {
    it(`${where}: each default shown is the one an unset variable gets`, () => {
      const shown = documentedDefaults(text);
      expect(shown.size).toBeGreaterThan(20);
      for (const name of ["LWC_SESSION_TTL_SECONDS", "LWC_AGENT_VOICE_IDLE_SECONDS", "LWC_REALTIME_MAX_REQUEST_BYTES"]) expect(shown.has(name), name).toBe(true);
      const wrong = [...shown].filter(([name, value]) => codeDefault(name, parsed) !== value);
      expect(wrong.map(([name, value]) => `${name}: docs ${value}, code ${codeDefault(name, parsed)}`)).toEqual([]);
    });
  }
});
