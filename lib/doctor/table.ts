import "server-only";
import type { CheckResult } from "./types";

const RESULT_LABEL = { ok: "ok", warn: "WARN", fail: "FAIL", skip: "skip" } as const;

/** The doctor's plain-text table: Check, Result, Detail (each detail on one line). */
export function renderTable(results: readonly CheckResult[]): string {
  const rows = results.map((result) => [result.check, RESULT_LABEL[result.status], result.detail.replace(/\s+/g, " ").trim()]);
  const header = ["Check", "Result", "Detail"];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column < cells.length - 1 ? cell.padEnd(widths[column]!) : cell)).join("  ");
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}
