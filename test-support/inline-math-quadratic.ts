/**
 * The maths normaliser as it was before it was made linear (lib/client/inline-math.ts), kept
 * unchanged as the oracle of its property test: for every input the two must give the same output.
 * It is quadratic (a line of 40k characters of `$a ` takes seconds): tests only, on short inputs.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function normalizeMathDelimitersQuadratic(markdown: string): string {
  if (!markdown.includes("$") && !markdown.includes("\\")) return markdown;
  const lines = markdown.split("\n");
  const out: string[] = [];
  let fence: string | null = null;
  let inDisplayMath = false;
  let inBracketMath = false;
  for (const line of lines) {
    if (fence !== null) {
      out.push(line);
      if (closesFence(line, fence)) fence = null;
      continue;
    }
    const opening = FENCE.exec(line);
    if (opening && !inDisplayMath && !inBracketMath) {
      fence = opening[1]!;
      out.push(line);
      continue;
    }
    const trimmed = line.trim();
    if (inDisplayMath) {
      out.push(line);
      if (trimmed === "$$") inDisplayMath = false;
      continue;
    }
    if (inBracketMath) {
      if (trimmed === "\\]") {
        out.push("$$");
        inBracketMath = false;
      } else {
        out.push(line);
      }
      continue;
    }
    if (trimmed === "$$") {
      inDisplayMath = true;
      out.push(line);
      continue;
    }
    if (trimmed === "\\[") {
      inBracketMath = true;
      out.push("$$");
      continue;
    }
    const oneLineDisplay = /^\\\[(.+)\\\]$/.exec(trimmed);
    if (oneLineDisplay) {
      out.push("$$", oneLineDisplay[1]!.trim(), "$$");
      continue;
    }
    out.push(normalizeInline(line));
  }
  return out.join("\n");
}

function closesFence(line: string, fence: string): boolean {
  const trimmed = line.trim();
  return trimmed.length >= fence.length && trimmed[0] === fence[0] && [...trimmed].every((char) => char === fence[0]);
}

function isSpace(char: string | undefined): boolean {
  return char === undefined || /\s/.test(char);
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= "0" && char <= "9";
}

/** True when the character at `index` has an odd number of backslashes right before it (escaped). */
function isEscaped(text: string, index: number): boolean {
  let count = 0;
  for (let at = index - 1; at >= 0 && text[at] === "\\"; at--) count += 1;
  return count % 2 === 1;
}

/** Where a single-dollar maths span opened at `open` closes, or -1 when it does not. */
function singleDollarClose(line: string, open: number): number {
  if (isSpace(line[open + 1])) return -1;
  for (let at = open + 1; at < line.length; at++) {
    if (line[at] !== "$" || isEscaped(line, at)) continue;
    if (line[at + 1] === "$") return -1; // `$a$$…` is not a single-dollar span
    if (!isSpace(line[at - 1]) && !isDigit(line[at + 1]) && at > open + 1) return at;
  }
  return -1;
}

function normalizeInline(line: string): string {
  let out = "";
  let at = 0;
  while (at < line.length) {
    const char = line[at]!;
    if (char === "`") {
      // An inline code span: a run of backticks up to the next run of the same length.
      let run = 1;
      while (line[at + run] === "`") run += 1;
      const ticks = "`".repeat(run);
      const close = findRun(line, ticks, at + run);
      const end = close < 0 ? at + run : close + run;
      out += line.slice(at, end);
      at = end;
      continue;
    }
    if (char === "\\") {
      const next = line[at + 1];
      if (next === "(") {
        const close = line.indexOf("\\)", at + 2);
        if (close > at + 2) {
          out += `$$${line.slice(at + 2, close).trim()}$$`;
          at = close + 2;
          continue;
        }
      }
      // Any other escape (`\$`, `\\`, …) passes through with the character it escapes.
      out += line.slice(at, at + 2);
      at += 2;
      continue;
    }
    if (char === "$") {
      if (line[at + 1] === "$") {
        // Existing `$$…$$` maths (or a lone `$$`) passes through unchanged.
        const close = line.indexOf("$$", at + 2);
        const end = close < 0 ? at + 2 : close + 2;
        out += line.slice(at, end);
        at = end;
        continue;
      }
      const close = singleDollarClose(line, at);
      if (close > 0) {
        out += `$$${line.slice(at + 1, close)}$$`;
        at = close + 1;
        continue;
      }
    }
    out += char;
    at += 1;
  }
  return out;
}

/** Index of a run of exactly `ticks` (not part of a longer run) from `from`, or -1. */
function findRun(line: string, ticks: string, from: number): number {
  for (let at = line.indexOf(ticks, from); at >= 0; at = line.indexOf(ticks, at + 1)) {
    if (line[at - 1] !== "`" && line[at + ticks.length] !== "`") return at;
  }
  return -1;
}
