/**
 * The docs name what they mean: "the contract" (the development-time name of the HTTP API) is said
 * as "the HTTP API" or "docs/api.md", which a reader can open. The one place that says it is the
 * glossary in docs/architecture.md, which defines it; every comment in the app's code that says it
 * names docs/api.md beside it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const docs = ["README.md", ...readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];
const CONTRACT = /\b(the|a|this) (HTTP |service )?contract\b|\bcontract's\b/i;

/** The text of a Markdown file without its "## Glossary" section. */
function withoutGlossary(markdown: string): string {
  return markdown.replace(/^## Glossary\n[\s\S]*?(?=^## |(?![\s\S]))/m, "");
}

const glossary = (readFileSync(join(root, "docs", "architecture.md"), "utf8").match(/^## Glossary\n[\s\S]*?(?=^## |(?![\s\S]))/m) ?? [""])[0];

it('README.md and docs/ never speak of "the contract" outside the glossary', () => {
  const found = docs.flatMap((file) =>
    withoutGlossary(readFileSync(join(root, file), "utf8"))
      .split("\n")
      .map((line, index) => ({ file, line: index + 1, text: line }))
      .filter(({ text }) => CONTRACT.test(text)),
  );
  expect(found).toEqual([]);
});

it('the glossary in docs/architecture.md says what "the contract" is: docs/api.md', () => {
  expect(glossary).toMatch(/^\| The contract \| The HTTP API as \[api\.md\]\(api\.md\) describes it/m);
});

/** Source files of the app's own code (tests and scripts speak of it in their own words). */
function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

it('a comment in lib/, app/ or components/ that says "the contract" names docs/api.md beside it', () => {
  const found = ["lib", "app", "components"].flatMap((folder) =>
    sourceFiles(folder).flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((text, index) => ({ file: file.slice(root.length + 1), line: index + 1, text: text.trim() }))
        .filter(({ text }) => CONTRACT.test(text) && !text.includes("docs/api.md")),
    ),
  );
  expect(found).toEqual([]);
});
