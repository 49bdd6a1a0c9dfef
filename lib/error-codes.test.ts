import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "@/test-support/import-graph";
import { API_ERROR_CODES, apiErrorCode } from "./error-codes";

const root = join(import.meta.dirname, "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");

/** The codes in the `error` column of docs/api.md's Errors table (field names in parentheses left out). */
function documentedCodes(): string[] {
  const markdown = read("docs/api.md");
  const start = markdown.indexOf("\n## Errors\n");
  const section = markdown.slice(start, markdown.indexOf("\n## ", start + 1));
  const codes = section
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| Status"))
    .flatMap((line) => {
      const errorCell = line.split("|")[2]!.replace(/\([^)]*\)/g, "");
      return [...errorCell.matchAll(/`([a-z][a-z_]*)`/g)].map((match) => match[1]!);
    });
  return [...new Set(codes)].sort();
}

describe("the API's error codes (lib/error-codes.ts)", () => {
  it("docs/api.md's Errors table lists exactly the codes of the list", () => {
    expect(documentedCodes()).toEqual([...API_ERROR_CODES].sort());
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
