import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "@/test-support/import-graph";
import { API_ERROR_CODES, API_ERRORS, apiErrorCode, type ApiErrorCode } from "./error-codes";

const root = join(import.meta.dirname, "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");

/** The rows of docs/api.md's Errors table: the status cell and the codes of the `error` cell (field names in parentheses left out). */
function documentedRows(): { status: string; codes: string[] }[] {
  const markdown = read("docs/api.md");
  const start = markdown.indexOf("\n## Errors\n");
  const section = markdown.slice(start, markdown.indexOf("\n## ", start + 1));
  return section
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| Status"))
    .map((line) => {
      const cells = line.split("|");
      const errorCell = cells[2]!.replace(/\([^)]*\)/g, "");
      return { status: cells[1]!.trim(), codes: [...errorCell.matchAll(/`([a-z][a-z_]*)`/g)].map((match) => match[1]!) };
    });
}

function documentedCodes(): string[] {
  return [...new Set(documentedRows().flatMap((row) => row.codes))].sort();
}

/** A code's status as docs/api.md's Status column writes it: `400`, `409 / 500`, `upstream or 502`. */
function statusCell(code: ApiErrorCode): string {
  const entry: { status: number; alsoStatus?: readonly number[]; upstream?: true } = API_ERRORS[code];
  const statuses = [entry.status, ...(entry.alsoStatus ?? [])].join(" / ");
  return entry.upstream ? `upstream or ${statuses}` : statuses;
}

describe("the API's error codes (lib/error-codes.ts)", () => {
  it("docs/api.md's Errors table lists exactly the codes of the list", () => {
    expect(documentedCodes()).toEqual([...API_ERROR_CODES].sort());
  });

  it("docs/api.md's Status column gives each code the status of its API_ERRORS entry, in every row that names it", () => {
    const disagreements = documentedRows().flatMap((row) =>
      row.codes
        .filter((code): code is ApiErrorCode => apiErrorCode(code) !== undefined)
        .filter((code) => statusCell(code) !== row.status)
        .map((code) => `${code}: docs say "${row.status}", API_ERRORS says "${statusCell(code)}"`),
    );
    expect(disagreements).toEqual([]);
  });

  it("holds each code once", () => {
    expect(new Set(API_ERROR_CODES).size).toBe(API_ERROR_CODES.length);
  });

  it("every code is one the server writes (lib/server, or a provider failure lib/upstream throws and a route passes on)", () => {
    const serverText = [...sourceFiles("lib/server"), ...sourceFiles("lib/upstream")]
      .filter((file) => !file.endsWith(".test.ts"))
      .map(read)
      .join("\n");
    expect(API_ERROR_CODES.filter((code) => !serverText.includes(`"${code}"`))).toEqual([]);
  });

  it("apiErrorCode keeps a code of the list and drops anything else", () => {
    expect(apiErrorCode("rate_limited")).toBe("rate_limited");
    expect(apiErrorCode("access_denied")).toBeUndefined();
    expect(apiErrorCode(429)).toBeUndefined();
  });
});
