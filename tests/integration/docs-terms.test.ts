/**
 * The docs name what they mean: "the contract" (the development-time name of the HTTP API) is said
 * as "the HTTP API" or "docs/api.md", which a reader can open.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const docs = ["README.md", ...readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];

it('README.md and docs/ never speak of "the contract"', () => {
  const found = docs.flatMap((file) =>
    readFileSync(join(root, file), "utf8")
      .split("\n")
      .map((line, index) => ({ file, line: index + 1, text: line }))
      .filter(({ text }) => /\b(the|a|this) (HTTP |service )?contract\b|\bcontract's\b/i.test(text)),
  );
  expect(found).toEqual([]);
});
