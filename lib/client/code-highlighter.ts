import type { CodeHighlighterPlugin, HighlightResult, HighlightToken } from "streamdown";

/*
 * A small, dependency-free syntax highlighter for Streamdown code blocks. It colours comments,
 * strings, numbers, keywords, types and function names for the common languages; good enough for
 * chat answers without shipping Shiki's grammars to the browser. Colours come from CSS variables
 * (--code-*) defined per theme in globals.css.
 */

type TokenKind = "comment" | "string" | "number" | "keyword" | "type" | "function" | "plain";

const KEYWORDS = new Set(
  (
    "abstract as async await break case catch class const continue def default defer del do elif else enum " +
    "except export extends false final finally fn for from func function go if impl implements import in " +
    "interface is lambda let loop match mod module mut new nil None not null of or and package pass private " +
    "protected pub public raise readonly return self Self static struct super switch this throw throws trait " +
    "true True False try type typeof undefined use var void where while with yield select insert update delete " +
    "create table values into join on group by order limit having distinct union alter drop set echo then fi " +
    "done esac local declare"
  ).split(" "),
);

const HASH_COMMENT_LANGUAGES = new Set([
  "python", "py", "bash", "sh", "shell", "zsh", "ruby", "rb", "yaml", "yml", "toml", "perl", "r", "dockerfile", "makefile", "ini", "conf",
]);
const DASH_COMMENT_LANGUAGES = new Set(["sql", "lua", "haskell", "hs"]);

function tokenPattern(language: string): RegExp {
  const lang = language.toLowerCase();
  const lineComment = HASH_COMMENT_LANGUAGES.has(lang) ? "#[^\\n]*" : DASH_COMMENT_LANGUAGES.has(lang) ? "--[^\\n]*" : "\\/\\/[^\\n]*";
  return new RegExp(
    [
      `(?<comment>\\/\\*[\\s\\S]*?(?:\\*\\/|$)|${lineComment})`,
      "(?<string>\"(?:\\\\.|[^\"\\\\\\n])*\"?|'(?:\\\\.|[^'\\\\\\n])*'?|`(?:\\\\.|[^`\\\\])*`?)",
      "(?<number>\\b(?:0x[\\da-fA-F_]+|\\d[\\d_]*(?:\\.\\d+)?(?:e[+-]?\\d+)?)\\b)",
      "(?<word>[A-Za-z_$][\\w$]*)",
    ].join("|"),
    "g",
  );
}

function classifyWord(word: string, code: string, end: number): TokenKind {
  if (KEYWORDS.has(word)) return "keyword";
  if (/^\s*\(/.test(code.slice(end, end + 8))) return "function";
  if (/^[A-Z][a-z0-9]/.test(word)) return "type";
  return "plain";
}

function token(content: string, kind: TokenKind): HighlightToken {
  return kind === "plain" ? { content } : { content, htmlStyle: { color: `var(--code-${kind})` } };
}

/** Splits the code into lines of coloured tokens. */
export function highlightCode(code: string, language: string): HighlightResult {
  const flat: HighlightToken[] = [];
  const pattern = tokenPattern(language);
  let last = 0;
  for (const match of code.matchAll(pattern)) {
    const index = match.index ?? 0;
    if (index > last) flat.push(token(code.slice(last, index), "plain"));
    const groups = match.groups ?? {};
    const kind: TokenKind = groups.comment
      ? "comment"
      : groups.string
        ? "string"
        : groups.number
          ? "number"
          : classifyWord(match[0], code, index + match[0].length);
    flat.push(token(match[0], kind));
    last = index + match[0].length;
  }
  if (last < code.length) flat.push(token(code.slice(last), "plain"));

  // Streamdown wants one array per line; multi-line tokens (block comments, template strings) are split.
  const lines: HighlightToken[][] = [[]];
  for (const piece of flat) {
    const parts = piece.content.split("\n");
    parts.forEach((part, partIndex) => {
      if (partIndex > 0) lines.push([]);
      if (part) lines[lines.length - 1]!.push({ ...piece, content: part });
    });
  }
  return { tokens: lines };
}

export const codeHighlighter: CodeHighlighterPlugin = {
  name: "shiki",
  type: "code-highlighter",
  getSupportedLanguages: () => [],
  getThemes: () => ["github-light", "github-dark"],
  supportsLanguage: () => true,
  highlight: ({ code, language }) => highlightCode(code, language),
};
