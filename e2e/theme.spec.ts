import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { ThemeControl } from "./pages/theme-control";

/** CSP refusals the page reports (the theme script is inline and must carry the page's nonce). */
function watchCspRefusals(page: Page): string[] {
  const refusals: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) refusals.push(message.text());
  });
  return refusals;
}

for (const width of [390, 1280]) {
  test.describe(`theme at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 }, colorScheme: "light" });

    test("System / Light / Dark: follows the device on System, is remembered, and the first frame after a reload already has it", async ({ page, signedInChat: chat, account }) => {
      const refusals = watchCspRefusals(page);
      const theme = new ThemeControl(page);
      await expect(theme.select).toBeVisible();
      await expect(theme.select).toHaveValue("system");
      await expect(theme.html).toHaveAttribute("data-theme", "light");

      // System follows the device setting as it changes.
      await page.emulateMedia({ colorScheme: "dark" });
      await expect(theme.html).toHaveAttribute("data-theme", "dark");
      expect(await theme.backgroundLightness()).toBeLessThan(0.5);
      await page.emulateMedia({ colorScheme: "light" });
      await expect(theme.html).toHaveAttribute("data-theme", "light");

      // Dark on a light device, remembered across a reload and painted dark from the first frame.
      await theme.select.selectOption("dark");
      await expect(theme.html).toHaveAttribute("data-theme", "dark");
      expect(await theme.backgroundLightness()).toBeLessThan(0.5);
      await theme.recordFirstFrame();
      await page.reload();
      expect(await theme.firstFrame()).toEqual({ theme: "dark", lightness: expect.any(Number) });
      expect((await theme.firstFrame()).lightness).toBeLessThan(0.5);
      await chat.expectSignedInAs(account.email);
      await expect(theme.select).toHaveValue("dark");

      // Light on a dark device, the same way.
      await page.emulateMedia({ colorScheme: "dark" });
      await expect(theme.html).toHaveAttribute("data-theme", "dark");
      await theme.select.selectOption("light");
      await expect(theme.html).toHaveAttribute("data-theme", "light");
      await page.reload();
      expect((await theme.firstFrame()).theme).toBe("light");
      expect((await theme.firstFrame()).lightness).toBeGreaterThan(0.5);
      await chat.expectSignedInAs(account.email);
      await expect(theme.select).toHaveValue("light");

      // Back to System: the device's dark again.
      await theme.select.selectOption("system");
      await expect(theme.html).toHaveAttribute("data-theme", "dark");

      // The header still fits: nothing scrolls sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      expect(refusals).toEqual([]);
    });
  });
}

test("a theme chosen in one tab reaches the other tabs of this browser", async ({ page, signedInChat: chat, account }) => {
  const other = await page.context().newPage();
  await other.goto("/");
  const otherTheme = new ThemeControl(other);
  await expect(otherTheme.html).toHaveAttribute("data-theme", "light");

  await new ThemeControl(page).select.selectOption("dark");
  await expect(otherTheme.html).toHaveAttribute("data-theme", "dark");
  await expect(chat.signedInEmail).toHaveText(account.email);
  await other.close();
});
