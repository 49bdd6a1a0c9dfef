/**
 * What of an upstream error body may reach a log line or a reply: a bounded, single-line snippet
 * with every token-shaped string removed and every run of the request's own input text replaced.
 * Provider errors can quote the prompt back, and some echo credentials.
 */

/** Longest snippet of an upstream body (an ellipsis marks a cut). */
export const SNIPPET_MAX_CHARS = 300;
/** A run of at least this many characters that also occurs in an input text is replaced. */
export const MIN_INPUT_RUN_CHARS = 12;
export const INPUT_MARKER = "[input]";
export const SECRET_MARKER = "[redacted]";
/**
 * How much of a (whitespace-collapsed) body is read for a snippet. Its last characters are never
 * shown, because a token or a quoted input cut by the window would no longer be recognised.
 */
const READ_WINDOW_CHARS = 64 * 1024;
const WINDOW_TAIL_DROPPED = 64;

const SECRET_PATTERNS: [RegExp, string][] = [
  // The value of a field named like a credential, whatever its shape.
  [
    /(\b(?:access_token|refresh_token|id_token|api[_-]?key|client_secret|password|code_verifier|authorization_code|device_auth_id)\b["']?\s*[:=]\s*["']?)[^"'\s&,;}]+/gi,
    `$1${SECRET_MARKER}`,
  ],
  [/\b(bearer)\s+(?!token\b)[^\s"',;]+/gi, `$1 ${SECRET_MARKER}`],
  // JWTs (also cut or re-joined ones).
  [/\beyJ[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*)*/g, SECRET_MARKER],
  // Prefixed keys and tokens: OpenAI API keys, app keys, refresh tokens, session ids.
  [/\b(?:sk|oaiapp|rt|sess)[-_][A-Za-z0-9_-]{8,}/g, SECRET_MARKER],
];

/** Runs of the base64/base64url/hex alphabet: redacted when they look random (see isRandomLooking). */
const TOKEN_ALPHABET_RUN = /[A-Za-z0-9+/_-]{24,}={0,2}/g;

/** 24+ characters with a letter and a digit, or 40+ with upper- and lower-case letters. */
function isRandomLooking(run: string): boolean {
  if (/[0-9]/.test(run) && /[A-Za-z]/.test(run)) return true;
  return run.length >= 40 && /[a-z]/.test(run) && /[A-Z]/.test(run);
}

/** Every token-shaped string (JWT, bearer value, sk-/oaiapp-/rt_ keys, long random runs) → `[redacted]`. */
export function redactSecrets(text: string): string {
  let result = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) result = result.replace(pattern, replacement);
  return result.replace(TOKEN_ALPHABET_RUN, (run) => (isRandomLooking(run) ? SECRET_MARKER : run));
}

const collapse = (text: string) => text.replace(/\s+/g, " ");
const jsonEscaped = (text: string) => (/["\\\u0000-\u001f]/.test(text) ? JSON.stringify(text).slice(1, -1) : text);
const asciiEscaped = (text: string) =>
  /[^\u0000-\u007f]/.test(text)
    ? text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)
    : text;

/** The forms in which an upstream may quote an input: as is, JSON-escaped once or twice, \u-escaped. */
function quotedForms(input: string): string[] {
  const once = jsonEscaped(input);
  return [...new Set([input, once, jsonEscaped(once), asciiEscaped(once)])];
}

/** What `\s` matches, by char code. */
function isSpace(code: number): boolean {
  return (
    code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
  );
}

/** `collapse(text)` as char codes, without building the string (inputs can be megabytes). */
function collapsedCodes(text: string): Uint16Array {
  const codes = new Uint16Array(text.length);
  let length = 0;
  let inSpace = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isSpace(code)) {
      codes[length++] = code;
      inSpace = false;
    } else if (!inSpace) {
      codes[length++] = 32;
      inSpace = true;
    }
  }
  return codes.subarray(0, length);
}

/**
 * A polynomial hash of MIN_INPUT_RUN_CHARS characters, rolled along a string (arithmetic mod
 * 2^32). Map keys keep 30 bits (small integers are cheap keys); every hit is compared in full.
 */
const HASH_BASE = 0x01000193;
const HASH_TOP = (() => {
  let result = 1;
  for (let i = 1; i < MIN_INPUT_RUN_CHARS; i++) result = Math.imul(result, HASH_BASE);
  return result;
})();
const KEY_MASK = 0x3fffffff;

/** The hash of every window of `text`, by start (empty when the text is shorter than a window). */
function windowHashes(text: string): Int32Array {
  const count = Math.max(0, text.length - MIN_INPUT_RUN_CHARS + 1);
  const hashes = new Int32Array(count);
  if (count === 0) return hashes;
  let hash = 0;
  for (let i = 0; i < MIN_INPUT_RUN_CHARS; i++) hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(i)) | 0;
  hashes[0] = hash;
  for (let start = 1; start < count; start++) {
    hash = (hash - Math.imul(text.charCodeAt(start - 1), HASH_TOP)) | 0;
    hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(start + MIN_INPUT_RUN_CHARS - 1)) | 0;
    hashes[start] = hash;
  }
  return hashes;
}

function sameChars(text: string, start: number, codes: Uint16Array, codesStart: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (text.charCodeAt(start + i) !== codes[codesStart + i]) return false;
  return true;
}

/**
 * Which characters of `text` lie in a run of at least MIN_INPUT_RUN_CHARS characters that also
 * occurs in one of `inputs` (in any of its quoted forms, whitespace collapsed). Linear in the
 * size of the inputs (a rolling hash), so a 4 MB prompt costs milliseconds, not a search per window.
 */
function inputCoverage(text: string, inputs: readonly string[]): Uint8Array {
  const length = MIN_INPUT_RUN_CHARS;
  const covered = new Uint8Array(text.length);
  const starts = new Map<number, number[]>();
  windowHashes(text).forEach((hash, start) => {
    const key = hash & KEY_MASK;
    const list = starts.get(key);
    if (list) list.push(start);
    else starts.set(key, [start]);
  });
  if (starts.size === 0) return covered;
  let left = text.length - length + 1;
  for (const input of inputs) {
    if (input.length < length) continue;
    for (const quoted of quotedForms(input)) {
      const form = collapsedCodes(quoted);
      if (form.length < length) continue;
      let hash = 0;
      for (let i = 0; i < length; i++) hash = (Math.imul(hash, HASH_BASE) + form[i]!) | 0;
      for (let formStart = 0; ; formStart++) {
        const key = hash & KEY_MASK;
        const candidates = starts.get(key);
        if (candidates) {
          // A window found is dropped from the map, so each is compared until found, not again.
          let kept = 0;
          for (const start of candidates) {
            if (sameChars(text, start, form, formStart, length)) covered.fill(1, start, start + length);
            else candidates[kept++] = start;
          }
          left -= candidates.length - kept;
          if (kept === 0) starts.delete(key);
          else candidates.length = kept;
          // Every window of the text is found: the rest of the inputs cannot add anything.
          if (left === 0) return covered;
        }
        if (formStart + length >= form.length) break;
        hash = (hash - Math.imul(form[formStart]!, HASH_TOP)) | 0;
        hash = (Math.imul(hash, HASH_BASE) + form[formStart + length]!) | 0;
      }
    }
  }
  return covered;
}

/** Shows `text[0, end)` with each covered stretch replaced by one INPUT_MARKER. */
function withInputMarkers(text: string, covered: Uint8Array, end: number): string {
  let result = "";
  for (let i = 0; i < end; i++) {
    if (!covered[i]) result += text[i];
    else if (i === 0 || !covered[i - 1]) result += INPUT_MARKER;
  }
  return result;
}

/** Every run of MIN_INPUT_RUN_CHARS+ characters of `text` that also occurs in an input → `[input]`. */
export function redactInputRuns(text: string, inputs: readonly string[]): string {
  const collapsed = collapse(text);
  return withInputMarkers(collapsed, inputCoverage(collapsed, inputs), collapsed.length);
}

interface SnippetOptions {
  /** The request's own input texts (prompt, instructions, offer): runs of them become `[input]`. */
  inputs?: readonly string[];
  maxChars?: number;
}

/**
 * A bounded, single-line snippet of an upstream body, safe for a log line or a reply: input runs
 * replaced, then token-shaped strings removed, then cut (so a cut never leaves a recognisable
 * half of either). Undefined for an empty body.
 */
export function upstreamSnippet(text: string | null | undefined, options: SnippetOptions = {}): string | undefined {
  const maxChars = options.maxChars ?? SNIPPET_MAX_CHARS;
  const oneLine = text ? collapse(text).trim() : "";
  if (oneLine === "") return undefined;
  const window = oneLine.slice(0, READ_WINDOW_CHARS);
  const cut = oneLine.length > window.length;
  const end = cut ? window.length - WINDOW_TAIL_DROPPED : window.length;
  const clean = redactSecrets(withInputMarkers(window, inputCoverage(window, options.inputs ?? []), end));
  return clean.length > maxChars || cut ? `${clean.slice(0, maxChars)}…` : clean;
}
