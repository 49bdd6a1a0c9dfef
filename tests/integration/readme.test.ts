/**
 * The README is the front page: short, the two commands first (CI runs the second one exactly), the rest
 * in docs/, and no wording that goes stale (test counts, development history).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { demoBanner } from "@/scripts/demo-banner";

const root = join(import.meta.dirname, "..", "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const lines = readme.split("\n");

/** The commands of the README's first code block, without their comments. */
function firstCommands(): { startLine: number; commands: string[] } {
  const start = lines.findIndex((line) => line.startsWith("```"));
  const end = lines.findIndex((line, index) => index > start && line.startsWith("```"));
  const commands = lines
    .slice(start + 1, end)
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
  return { startLine: start + 1, commands };
}

describe("README.md", () => {
  it("has at most 250 lines", () => {
    expect(readme.trimEnd().split("\n").length).toBeLessThanOrEqual(250);
  });

  it("opens with two commands: install and run the app, install and run every test", () => {
    const { startLine, commands } = firstCommands();
    expect(startLine).toBeLessThanOrEqual(4);
    expect(commands).toEqual(["npm ci && npm run demo", "npm ci && npm test"]);
  });

  it("gives the test command CI runs (.ci/run's last command)", () => {
    const ciCommands = readFileSync(join(root, ".ci", "run"), "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("#"));
    expect(ciCommands.at(-1)).toBe(firstCommands().commands[1]);
  });

  it("says what npm test needs and how long it takes", () => {
    expect(readme).toMatch(/Debian-based Linux/);
    expect(readme).toMatch(/about \d+(?:[–-]| to )\d+ minutes on 2 cores/);
  });

  it("names what an adopter looks for first", () => {
    for (const name of ["npm run doctor", "LWC_REALTIME_MODEL", "LWC_WEB_SEARCH", "LWC_INSTRUCTIONS", "## Customize it", "## Deploy"]) {
      expect(readme, name).toContain(name);
    }
  });

  it("links every page of docs/", () => {
    const pages = readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md"));
    expect(pages.filter((page) => !readme.includes(`(docs/${page}`))).toEqual([]);
  });

  it("walks through the demo with the buttons the demo's sign-in screen shows", () => {
    const paragraph = readme.split("\n\n").find((text) => text.startsWith("In the demo"));
    expect(paragraph).toBeDefined();
    // The labels the demo's banner names for its sign-in (scripts/demo.ts: LWC_SIGN_IN=device,siwc unless set).
    const banner = demoBanner({ appPort: 3000, env: { LWC_SIGN_IN: "device,siwc" }, mock: { url: "", verificationUrl: "" }, agentVoice: "" });
    const labels = [...banner.matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
    expect(labels).toEqual(["Continue with ChatGPT", "Sign in with a one-time code"]);
    for (const label of labels) expect(paragraph, label).toContain(`**${label}**`);
    // "Sign in with ChatGPT" is the button only when the device code is the one sign-in.
    expect(paragraph).not.toContain("**Sign in with ChatGPT**");
  });

  it("has no counts that go stale and no development-history wording", () => {
    const stale = [
      /\b\d+ (?:unit |e2e |browser |integration )?tests?\b/i,
      /\b\d+ (?:spec )?files\b/i,
      /with this fix/i,
      /\(addition\)/i,
      /\|\s*Before\b/,
    ];
    const found = lines.flatMap((line, index) => (stale.some((pattern) => pattern.test(line)) ? [`${index + 1}: ${line}`] : []));
    expect(found).toEqual([]);
  });
});
