import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { beforeAll, describe, expect, it } from "vitest";
import { mathRenderer } from "@/components/chat/math-on-demand";
import { MarkdownContent } from "@/components/chat/markdown-content";
import { normalizeMathDelimiters } from "./inline-math";

function render(text: string): string {
  return renderToStaticMarkup(createElement(MarkdownContent, { text, streaming: false }));
}

function mathCount(html: string): number {
  return html.match(/class="katex"/g)?.length ?? 0;
}

describe("normalizeMathDelimiters", () => {
  it("rewrites $…$ and \\(…\\) to $$…$$", () => {
    expect(normalizeMathDelimiters("Area is $\\pi r^2$ here")).toBe("Area is $$\\pi r^2$$ here");
    expect(normalizeMathDelimiters("so \\(x^2 + 1\\) grows")).toBe("so $$x^2 + 1$$ grows");
    expect(normalizeMathDelimiters("$a$ and $b$")).toBe("$$a$$ and $$b$$");
  });

  it("leaves prices and lone dollars as text", () => {
    for (const text of [
      "It costs $5 and $10.",
      "Between $5-$10 a month",
      "$1,000 or $2,000",
      "US$5 vs US$10",
      "Pay $20 now",
      "a $ b $ c",
      "escaped \\$x\\$ stays",
    ]) {
      expect(normalizeMathDelimiters(text), text).toBe(text);
    }
  });

  it("leaves code spans, fenced code and existing $$ maths alone", () => {
    expect(normalizeMathDelimiters("run `echo $HOME$PATH` and `\\(x\\)`")).toBe("run `echo $HOME$PATH` and `\\(x\\)`");
    const fenced = "```sh\necho $a$ \\(b\\)\n```\nthen $c$";
    expect(normalizeMathDelimiters(fenced)).toBe("```sh\necho $a$ \\(b\\)\n```\nthen $$c$$");
    expect(normalizeMathDelimiters("Euler: $$e^{i\\pi} + 1 = 0$$")).toBe("Euler: $$e^{i\\pi} + 1 = 0$$");
    const block = "$$\nx = $y$\n$$";
    expect(normalizeMathDelimiters(block)).toBe(block);
  });

  it("turns \\[…\\] into display maths", () => {
    expect(normalizeMathDelimiters("See\n\\[\nE = mc^2\n\\]\nok")).toBe("See\n$$\nE = mc^2\n$$\nok");
    expect(normalizeMathDelimiters("\\[ a^2 + b^2 = c^2 \\]")).toBe("$$\na^2 + b^2 = c^2\n$$");
  });

  it("leaves an unfinished span (still streaming) as text", () => {
    expect(normalizeMathDelimiters("so $x^")).toBe("so $x^");
    expect(normalizeMathDelimiters("so \\(x^")).toBe("so \\(x^");
  });
});

describe("MarkdownContent maths", () => {
  it("shows the maths as written until the renderer has downloaded, then renders it", async () => {
    const html = render("Inline $x^2$ here.");
    expect(mathCount(html)).toBe(0);
    expect(html).toContain("Inline $$x^2$$ here.");
    await mathRenderer.load();
    expect(mathCount(render("Inline $x^2$ here."))).toBe(1);
  });

  describe("with the renderer downloaded", () => {
    beforeAll(() => mathRenderer.load());

    it("renders inline $…$ and \\(…\\) with KaTeX, inline like block maths", () => {
      const html = render("Inline $x^2$ and \\(\\frac{a}{b}\\) in a sentence.");
      expect(mathCount(html)).toBe(2);
      expect(html).not.toContain("katex-display");
      expect(html).toContain("in a sentence.");
    });

    it("renders \\[…\\] as display maths", () => {
      expect(render("Before\n\n\\[\nE = mc^2\n\\]\n\nafter")).toContain("katex-display");
    });

    it("keeps prices as plain text", () => {
      const html = render("It costs $5 and $10, or $5-$10 with tax.");
      expect(mathCount(html)).toBe(0);
      expect(html).toContain("It costs $5 and $10, or $5-$10 with tax.");
    });
  });
});
