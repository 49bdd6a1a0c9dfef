/**
 * The product carries no benchmark code: what `npm run bench` needs beyond the product (the
 * framework's floor, its route and its settings) lives under scripts/bench/, and app/ and lib/ hold
 * only what a deploy runs.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const PRODUCT_FOLDERS = ["app", "lib"];

const entries = (folder: string) =>
  readdirSync(join(root, folder), { recursive: true, withFileTypes: true }).map((entry) => ({
    path: relative(root, join(entry.parentPath, entry.name)),
    isFile: entry.isFile(),
  }));
const sourceFiles = (folder: string) => entries(folder).filter((entry) => entry.isFile && /\.(ts|tsx|mjs|js)$/.test(entry.path));

describe.each(PRODUCT_FOLDERS)("%s/", (folder) => {
  it("has no file or folder named for a benchmark", () => {
    expect(entries(folder).filter((entry) => /bench/i.test(entry.path)).map((entry) => entry.path)).toEqual([]);
  });

  it("names no benchmark route, setting or code: the floor and its variable live in scripts/bench/", () => {
    const found = sourceFiles(folder).flatMap((file) =>
      readFileSync(join(root, file.path), "utf8")
        .split("\n")
        .map((text, index) => ({ file: file.path, line: index + 1, text: text.trim() }))
        .filter(({ text }) => /bench[-_]?floor|BENCH_|benchFloor|floor-app/i.test(text)),
    );
    expect(found).toEqual([]);
  });

  it("imports nothing from scripts/", () => {
    const found = sourceFiles(folder).filter((file) =>
      /\bfrom\s+["'](?:@\/|(?:\.\.\/)+)scripts\/|import\(\s*["'](?:@\/|(?:\.\.\/)+)scripts\//.test(readFileSync(join(root, file.path), "utf8")),
    );
    expect(found.map((file) => file.path)).toEqual([]);
  });
});
