import { describe, expect, it } from "vitest";
import { normalizeMathDelimitersQuadratic } from "@/test-support/inline-math-quadratic";
import { normalizeMathDelimiters } from "./inline-math";

/** A small deterministic generator (mulberry32), so a failure names an input that can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pieces that meet every rule of the normaliser: dollars, escapes, brackets, backticks, fences, digits, spaces. */
const PIECES = ["$", "$$", "\\", "\\(", "\\)", "\\[", "\\]", "`", "``", "```", "~~~", "\n", " ", "  ", "\t", "a", "x^2", "5", "1,0", "-", "(", ")", "[", "]", "{", "}", "é", "\u00a0"];

/** Fewer kinds, so spans open and close often. */
const DENSE = ["$", "\\", "(", ")", "`", "a", " ", "5", "\n"];

function text(next: () => number, length: number, pieces: readonly string[] = PIECES): string {
  let out = "";
  while (out.length < length) out += pieces[Math.floor(next() * pieces.length)]!;
  return out;
}

describe("normalizeMathDelimiters against the quadratic implementation it replaced", () => {
  it("gives the same output on 40,000 generated inputs of up to 60 characters", () => {
    const next = random(32);
    let rewritten = 0;
    for (let i = 0; i < 40_000; i += 1) {
      const input = text(next, 1 + Math.floor(next() * 60), i % 2 === 0 ? PIECES : DENSE);
      const expected = normalizeMathDelimitersQuadratic(input);
      expect(normalizeMathDelimiters(input), JSON.stringify(input)).toBe(expected);
      if (expected !== input) rewritten += 1;
    }
    // The inputs exercise the rewriting, not only the pass-through.
    expect(rewritten).toBeGreaterThan(5_000);
  });

  it("gives the same output on longer inputs and on lines of one repeated piece", () => {
    const next = random(7);
    const inputs = Array.from({ length: 300 }, () => text(next, 200 + Math.floor(next() * 800)));
    for (const piece of PIECES) inputs.push(`${piece}a `.repeat(40), `${piece}`.repeat(40), `x ${piece}y${piece} `.repeat(20));
    inputs.push("$a ".repeat(300), "\\(a ".repeat(300), `${Array.from({ length: 30 }, (_, k) => "`".repeat(k + 1)).join("a")}$`);
    for (const input of inputs) {
      expect(normalizeMathDelimiters(input), JSON.stringify(input)).toBe(normalizeMathDelimitersQuadratic(input));
    }
  });
});
