import type { Locator, Page } from "@playwright/test";

/** The header's System / Light / Dark control and the theme the page shows. */
export class ThemeControl {
  readonly select: Locator;
  readonly html: Locator;

  constructor(readonly page: Page) {
    this.select = page.getByTestId("theme-select");
    this.html = page.locator("html");
  }

  /** OKLCH lightness of the page background right now (0 black … 1 white). */
  async backgroundLightness(): Promise<number> {
    return lightnessOf(await this.page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor));
  }

  /**
   * Records, from the next page load on, the theme and background of the first frame the browser
   * draws: a requestAnimationFrame callback runs right before that frame is painted.
   */
  async recordFirstFrame(): Promise<void> {
    await this.page.addInitScript(() => {
      requestAnimationFrame(() => {
        (window as unknown as { __firstFrame: unknown }).__firstFrame = {
          theme: document.documentElement.dataset.theme ?? null,
          background: getComputedStyle(document.documentElement).backgroundColor,
        };
      });
    });
  }

  async firstFrame(): Promise<{ theme: string | null; lightness: number }> {
    const frame = await this.page.evaluate(() => (window as unknown as { __firstFrame: { theme: string | null; background: string } }).__firstFrame);
    return { theme: frame.theme, lightness: lightnessOf(frame.background) };
  }
}

/**
 * Lightness of a computed colour, 0 … 1: `oklch(L …)` / `oklab(L …)`, `lab(L …)` (L in 0 … 100), as
 * Chromium reports the design tokens, or `rgb(…)`.
 */
function lightnessOf(color: string): number {
  const ok = /^ok(?:lch|lab)\(([\d.]+)/.exec(color);
  if (ok) return Number(ok[1]);
  const lab = /^(?:lab|lch)\(([\d.]+)/.exec(color);
  if (lab) return Number(lab[1]) / 100;
  const rgb = /^rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(color);
  if (!rgb) throw new Error(`Unexpected colour: ${color}`);
  return (Number(rgb[1]) + Number(rgb[2]) + Number(rgb[3])) / (3 * 255);
}
