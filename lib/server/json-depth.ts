import "server-only";
/** Deeper than this, a request body is refused: no real Responses API body comes near it. */
export const MAX_JSON_DEPTH = 64;

/**
 * True when the JSON text nests arrays and objects deeper than `maxDepth`. A linear scan over the
 * text (strings and their escapes skipped), run before parsing, so a deeply nested body is refused
 * without ever being parsed or serialised recursively.
 */
export function exceedsJsonDepth(text: string, maxDepth = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c /* \ */) index += 1;
      else if (char === 0x22 /* " */) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x5b /* [ */ || char === 0x7b /* { */) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (char === 0x5d /* ] */ || char === 0x7d /* } */) {
      depth -= 1;
    }
  }
  return false;
}
