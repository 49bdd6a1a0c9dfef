/**
 * docs/architecture.md's folder table is the map of lib/: every folder directly under lib/ and under
 * lib/server/ has a row there, and every folder a row names exists. A new folder without a row, or
 * a row left behind by a moved folder, fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const architecture = readFileSync(join(root, "docs", "architecture.md"), "utf8");

/** The folders named (in backticks, ending in a slash) in the first cell of the table's rows. */
function foldersWithARow(markdown: string): Set<string> {
  const header = markdown.indexOf("| Folder | Owns |");
  if (header === -1) throw new Error("docs/architecture.md has no `| Folder | Owns |` table");
  const rows = markdown.slice(header).split("\n").slice(2);
  const table = rows.slice(0, rows.findIndex((line) => !line.startsWith("|")));
  const firstCells = table.map((line) => line.split("|")[1] ?? "");
  return new Set(firstCells.flatMap((cell) => [...cell.matchAll(/`([^`]+\/)`/g)].map((match) => match[1]!)));
}

const foldersIn = (folder: string) =>
  readdirSync(join(root, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${folder}/${entry.name}/`);

describe("docs/architecture.md's folder table", () => {
  const rows = foldersWithARow(architecture);

  it("reads the rows (the parser finds the table)", () => {
    expect(rows).toContain("lib/server/");
    expect(rows).toContain("components/");
  });

  it.each([...foldersIn("lib"), ...foldersIn("lib/server")])("has a row for %s", (folder) => {
    expect(rows.has(folder), `add a row for \`${folder}\` to the table in docs/architecture.md`).toBe(true);
  });

  it("names only folders that exist", () => {
    const missing = [...rows].filter((folder) => {
      try {
        readdirSync(join(root, folder));
        return false;
      } catch {
        return true;
      }
    });
    expect(missing).toEqual([]);
  });
});
