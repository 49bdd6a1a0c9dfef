import "server-only";
/** Deeper than this, a request body is refused: no real Responses API body comes near it. */
export const MAX_JSON_DEPTH = 64;

/**
 * True when the JSON text nests arrays and objects deeper than `maxDepth`. A linear scan over the
 * text, run before parsing, so a deeply nested body is refused without ever being parsed or
 * serialised recursively. Strings are skipped with indexOf (their text is most of a real body:
 * messages, images as data URLs), so only the structure outside them is walked character by character.
 */
export function exceedsJsonDepth(text: string, maxDepth = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (char === 0x22 /* " */) {
      index = closingQuote(text, index);
    } else if (char === 0x5b /* [ */ || char === 0x7b /* { */) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (char === 0x5d /* ] */ || char === 0x7d /* } */) {
      depth -= 1;
    }
  }
  return false;
}

/** Index of the quote that ends the string opened at `open`: the next one not escaped (an even run of backslashes before it); text.length when none does. */
function closingQuote(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c /* \ */) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}
