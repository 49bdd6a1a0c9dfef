/**
 * No export without a caller: every name a file exports is imported by another file (a test counts),
 * except Next's route and page files, configs, and the public entry points adopters import from
 * (test-support/dead-exports.ts). An unused export is dead code, or a name to keep inside its file.
 */
import { expect, it } from "vitest";
import { deadExports } from "@/test-support/dead-exports";

it("every export has a caller in another file", () => {
  expect(deadExports()).toEqual([]);
});
