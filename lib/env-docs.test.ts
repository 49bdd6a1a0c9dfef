import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";

const root = join(import.meta.dirname, "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const VARIABLE = /\b(?:LWC_[A-Z0-9_]+|UPSTASH_REDIS_REST_(?:URL|TOKEN)|KV_REST_API_(?:URL|TOKEN))\b/g;

/** The text of one `## ` section of a markdown file, from its heading to the next one. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`no "## ${heading}" section`);
  const end = markdown.indexOf("\n## ", start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

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

  it(".env.example lists each one as NAME=", () => {
    const assigned = [...read(".env.example").matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]!);
    expect([...new Set(assigned)].sort()).toEqual(expected);
  });

  it("the README's Configuration section names each one", () => {
    expect(namesIn(section(read("README.md"), "Configuration"))).toEqual(expected);
  });

  it("docs/server.md's Environment variables section names each one", () => {
    expect(namesIn(section(read("docs/server.md"), "Environment variables"))).toEqual(expected);
  });
});
