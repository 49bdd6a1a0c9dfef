import { expect, test } from "./fixtures";

for (const width of [390, 1280]) {
  test.describe(`maths at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    test("inline $…$ and \\(…\\) render like block maths, and prices stay text", async ({ page, signedInChat: chat }) => {
      // The mock echoes the message, so the answer holds exactly this Markdown.
      const message = "Inline $x^2 + y^2$ and \\(\\frac{a}{b}\\) in a sentence; a coffee costs $5 and a cake $10.";
      await chat.sendAndWaitForReply(message, "in a sentence; a coffee costs $5 and a cake $10.");
      // The answer's own text (the collapsed reasoning summary holds a copy too).
      const answer = chat.lastAssistantMessage().locator(".lwc-markdown").last();
      await expect(answer.locator(".katex")).toHaveCount(2);
      // Inline: in the sentence's paragraph, not display blocks of their own.
      await expect(answer.locator(".katex-display")).toHaveCount(0);
      await expect(answer.locator("p", { has: page.locator(".katex") })).toContainText("in a sentence");
      await expect(answer.locator(".katex").first()).toBeVisible();
      // KaTeX's stylesheet came with the renderer (it downloads when maths first shows): the MathML copy is hidden.
      await expect(answer.locator(".katex-mathml").first()).toHaveCSS("position", "absolute");
      // KaTeX's MathML copy carries the source, so the maths is what was written.
      await expect(answer.locator('.katex annotation[encoding="application/x-tex"]').first()).toHaveText("x^2 + y^2");
      await expect(answer.locator('.katex annotation[encoding="application/x-tex"]').last()).toHaveText("\\frac{a}{b}");
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    });
  });
}
