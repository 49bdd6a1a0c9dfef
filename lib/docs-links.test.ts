/**
 * Every relative link in README.md and docs/*.md leads somewhere: the file exists, and a `#part` names a
 * heading of that Markdown file (as GitHub spells heading anchors).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const files = ["README.md", ...readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];

/** The text outside fenced code blocks and code spans, where a `](…)` is a real link. */
function prose(markdown: string): string {
  return markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/(`+)[^`\n]*?\1/g, "");
}

/** Link targets: `[text](target)`, `[text](target "title")`, `<img src="target">`, `<a href="target">`. */
function targets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
  const html = [...text.matchAll(/<(?:img|a)\b[^>]*?\s(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
  return [...inline, ...html];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  return heading
    .replace(/<[^>]+>/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Every anchor a Markdown file offers; repeated headings get -1, -2, … as on GitHub. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const outsideFences = markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const match of outsideFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(match[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//");

describe("relative links in README.md and docs/", () => {
  it("finds the files and some links in them", () => {
    expect(files).toContain("docs/api.md");
    expect(targets(readFileSync(join(root, "README.md"), "utf8")).filter((target) => !isExternal(target)).length).toBeGreaterThan(5);
  });

  it("each leads to an existing file and, with a #part, to a heading there", () => {
    const broken: string[] = [];
    for (const file of files) {
      const markdown = readFileSync(join(root, file), "utf8");
      for (const target of targets(markdown)) {
        if (isExternal(target)) continue;
        const [pathPart = "", anchor] = target.split("#", 2);
        const path = pathPart === "" ? join(root, file) : join(root, dirname(file), decodeURIComponent(pathPart));
        if (relative(root, path).startsWith("..")) {
          broken.push(`${file}: ${target} (outside the repository)`);
          continue;
        }
        if (!existsSync(path)) {
          broken.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (anchor !== undefined && path.endsWith(".md") && !anchors(readFileSync(path, "utf8")).has(anchor.toLowerCase())) {
          broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("spells anchors as GitHub does", () => {
    expect(slug("The `/responses` proxy")).toBe("the-responses-proxy");
    expect(slug("Health check: /api/health")).toBe("health-check-apihealth");
    expect(slug("Options (all optional) and defaults")).toBe("options-all-optional-and-defaults");
    expect([...anchors("# A\n## B\n## B\n```\n# not a heading\n```\n")]).toEqual(["a", "b", "b-1"]);
  });
});
