import { describe, expect, it } from "vitest";
import { formatCountdown, formatDuration } from "./format-time";
import { readServiceTierFallback, readUsageHeaders } from "./usage-headers";
import { highlightCode } from "./code-highlighter";

describe("readUsageHeaders", () => {
  it("reads both windows, clamps the percent and turns reset-at seconds into milliseconds", () => {
    const headers = new Headers({
      "x-codex-primary-used-percent": "112.5",
      "x-codex-primary-window-minutes": "300",
      "x-codex-primary-reset-at": "1900000000",
      "x-codex-secondary-used-percent": "4",
    });
    expect(readUsageHeaders(headers)).toEqual({
      primary: { usedPercent: 100, windowMinutes: 300, resetsAt: 1_900_000_000_000 },
      secondary: { usedPercent: 4, windowMinutes: undefined, resetsAt: undefined },
    });
  });

  it("is undefined without usage headers, and reads the fallback header", () => {
    expect(readUsageHeaders(new Headers({ "x-codex-primary-used-percent": "n/a" }))).toBeUndefined();
    expect(readServiceTierFallback(new Headers({ "x-login-with-provider-service-tier-fallback": "auto" }))).toBe("auto");
    expect(readServiceTierFallback(new Headers())).toBeUndefined();
  });
});

describe("format-time", () => {
  it("formats countdowns as mm:ss and durations briefly", () => {
    expect(formatCountdown(899.4)).toBe("14:59");
    expect(formatCountdown(-3)).toBe("00:00");
    expect(formatDuration(42)).toBe("42 s");
    expect(formatDuration(3 * 3600 + 20 * 60)).toBe("3 h 20 min");
    expect(formatDuration(4 * 86_400)).toBe("4 d");
  });
});

describe("highlightCode", () => {
  it("colours keywords, strings, comments and calls, one token list per line", () => {
    const { tokens } = highlightCode('const a = "x"; // note\nprint(a)', "ts");
    expect(tokens).toHaveLength(2);
    const colourOf = (content: string) => tokens.flat().find((token) => token.content === content)?.htmlStyle?.color;
    expect(colourOf("const")).toBe("var(--code-keyword)");
    expect(colourOf('"x"')).toBe("var(--code-string)");
    expect(colourOf("// note")).toBe("var(--code-comment)");
    expect(colourOf("print")).toBe("var(--code-function)");
    expect(tokens.flat().map((token) => token.content).join("")).toBe('const a = "x"; // noteprint(a)');
  });

  it("uses # comments for Python and splits a block comment over lines", () => {
    expect(highlightCode("# hi", "python").tokens[0]![0]!.htmlStyle?.color).toBe("var(--code-comment)");
    const block = highlightCode("/* a\nb */", "js").tokens;
    expect(block.map((line) => line.map((token) => token.content).join(""))).toEqual(["/* a", "b */"]);
  });
});
