/**
 * Models write inline maths as `$x^2$` or `\(x^2\)` and display maths as `\[…\]`. The renderer
 * (remark-math, single-dollar maths off so prices stay text) knows only `$$…$$`, so those forms are
 * rewritten to it before rendering. A single `$` pair counts as maths only under Pandoc's rule: the
 * opening `$` has a non-space right after it, the closing one a non-space right before it and no
 * digit right after it. "$5 and $10", "$5-$10" and "$1,000" stay text.
 * Code (fenced blocks, inline code spans) and existing `$$` maths are left exactly as they are.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The Markdown with `$…$`, `\(…\)` and `\[…\]` maths rewritten to `$$` delimiters. */
export function normalizeMathDelimiters(markdown: string): string {
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

/**
 * Where a single-dollar maths span opened at a given `$` closes, or -1 when it does not, for opens
 * asked in increasing order. The candidates are the line's unescaped `$` (an odd run of
 * backslashes before one escapes it), in order; the first one followed by another `$` ends the
 * search (`$a$$…` is no single-dollar span), and the first with a non-space before it and no digit
 * after it closes. Each candidate's answer is worked out once, from the right, so the line is read
 * a fixed number of times however many `$` it holds (searching on from each open was quadratic).
 * An open is never followed by `$` (that is `$$`), so a candidate is never the open's next character.
 */
function singleDollarCloser(line: string): (open: number) => number {
  const candidates: number[] = [];
  let backslashes = 0;
  for (let at = 0; at < line.length; at++) {
    const char = line[at];
    if (char === "$" && backslashes % 2 === 0) candidates.push(at);
    backslashes = char === "\\" ? backslashes + 1 : 0;
  }
  const closes = new Array<number>(candidates.length);
  for (let index = candidates.length - 1; index >= 0; index--) {
    const at = candidates[index]!;
    if (line[at + 1] === "$") closes[index] = -1;
    else if (!isSpace(line[at - 1]) && !isDigit(line[at + 1])) closes[index] = at;
    else closes[index] = index + 1 < candidates.length ? closes[index + 1]! : -1;
  }
  let next = 0;
  return (open) => {
    if (isSpace(line[open + 1])) return -1;
    while (next < candidates.length && candidates[next]! <= open) next++;
    return next < candidates.length ? closes[next]! : -1;
  };
}

/**
 * `line.indexOf(needle, from)` for `from` asked in increasing order: a found index still ahead is
 * reused and "none" stays none, so the line is searched once instead of once per opener.
 */
function forwardSearch(line: string, needle: string): (from: number) => number {
  let found: number | undefined;
  return (from) => {
    if (found === undefined || (found !== -1 && found < from)) found = line.indexOf(needle, from);
    return found;
  };
}

/**
 * Where the next run of exactly `length` backticks (not part of a longer run) starts at or after
 * `from`, or -1, for `from` asked in increasing order: the line's runs are listed once by length.
 */
function backtickRuns(line: string): (length: number, from: number) => number {
  const starts = new Map<number, number[]>();
  for (let at = line.indexOf("`"); at >= 0; ) {
    let end = at;
    while (line[end] === "`") end++;
    const list = starts.get(end - at);
    if (list) list.push(at);
    else starts.set(end - at, [at]);
    at = line.indexOf("`", end);
  }
  const next = new Map<number, number>();
  return (length, from) => {
    const list = starts.get(length);
    if (!list) return -1;
    let index = next.get(length) ?? 0;
    while (index < list.length && list[index]! < from) index++;
    next.set(length, index);
    return index < list.length ? list[index]! : -1;
  };
}

function normalizeInline(line: string): string {
  const singleDollarClose = singleDollarCloser(line);
  const nextParenClose = forwardSearch(line, "\\)");
  const nextDoubleDollar = forwardSearch(line, "$$");
  const nextRun = backtickRuns(line);
  let out = "";
  let at = 0;
  while (at < line.length) {
    const char = line[at]!;
    if (char === "`") {
      // An inline code span: a run of backticks up to the next run of the same length.
      let run = 1;
      while (line[at + run] === "`") run += 1;
      const close = nextRun(run, at + run);
      const end = close < 0 ? at + run : close + run;
      out += line.slice(at, end);
      at = end;
      continue;
    }
    if (char === "\\") {
      const next = line[at + 1];
      if (next === "(") {
        const close = nextParenClose(at + 2);
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
        const close = nextDoubleDollar(at + 2);
        const end = close < 0 ? at + 2 : close + 2;
        out += line.slice(at, end);
        at = end;
        continue;
      }
      const close = singleDollarClose(at);
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
