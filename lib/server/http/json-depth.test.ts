import { describe, expect, it } from "vitest";
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "./json-depth";

/** The plain character-by-character scan (what exceedsJsonDepth must agree with): `\` skips the next character inside a string. */
function referenceExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === "[" || char === "{") {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (char === "]" || char === "}") {
      depth -= 1;
    }
  }
  return false;
}

/** A small deterministic generator (mulberry32), so a failure names a reproducible seed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("exceedsJsonDepth", () => {
  it("counts nesting outside strings only", () => {
    expect(exceedsJsonDepth("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth("[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(exceedsJsonDepth(JSON.stringify({ text: "[".repeat(1000) }))).toBe(false);
    // Escaped quotes do not end a string; an even run of backslashes before a quote does.
    expect(exceedsJsonDepth('["\\"[[[["]', 2)).toBe(false);
    expect(exceedsJsonDepth('["\\\\"[[[]]]]', 2)).toBe(true);
    expect(exceedsJsonDepth('["\\\\\\"[[[["]', 2)).toBe(false);
    // An unterminated string hides the rest of the text, as the parser would refuse it anyway.
    expect(exceedsJsonDepth('["[[[[[', 2)).toBe(false);
  });

  it("agrees with the character-by-character scan on generated texts full of quotes, backslashes and brackets", () => {
    const alphabet = ['"', '"', "\\", "\\", "[", "]", "{", "}", "a", ","];
    for (let seed = 1; seed <= 20_000; seed += 1) {
      const next = random(seed);
      const length = Math.floor(next() * 40);
      let text = "";
      for (let index = 0; index < length; index += 1) text += alphabet[Math.floor(next() * alphabet.length)];
      const maxDepth = Math.floor(next() * 4);
      expect({ seed, text, exceeds: exceedsJsonDepth(text, maxDepth) }).toEqual({ seed, text, exceeds: referenceExceeds(text, maxDepth) });
    }
  });

  it("agrees with it on a real body: a conversation with an image as a data URL and escaped text", () => {
    const body = JSON.stringify({
      model: "gpt-5.5",
      input: [
        { role: "user", content: [{ type: "input_text", text: 'Quote: "[{not nested}]" and a path C:\\temp\\' }] },
        { role: "user", content: [{ type: "input_image", image_url: `data:image/png;base64,${"iVBORw0KGgo".repeat(50_000)}` }] },
      ],
    });
    for (const maxDepth of [3, 4, 5, MAX_JSON_DEPTH]) expect(exceedsJsonDepth(body, maxDepth)).toBe(referenceExceeds(body, maxDepth));
  });
});
