import { seriousAccessibilityViolations } from "./support/axe";
import { tabTo } from "./support/keyboard";
import { expect, test } from "./support/voice-fixtures";

test.describe("voice, keyboard only", () => {
  test("open, start, type, mute, hang up and close with the keyboard", async ({ page, voice }) => {
    await tabTo(page, "voice-button");
    await page.keyboard.press("Enter");
    await expect(voice.dialog).toBeVisible();
    // The dialog opens on its one action.
    await expect(voice.startButton).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(voice.status).toHaveAttribute("data-status", /^(listening|speaking)$/, { timeout: 20_000 });
    await expect(voice.muteButton).toBeFocused();

    await tabTo(page, "voice-text-input");
    await page.keyboard.type("typed by keyboard");
    await page.keyboard.press("Enter");
    await expect(voice.typedLine("typed by keyboard")).toHaveCount(1);

    await tabTo(page, "voice-mute");
    await page.keyboard.press("Space");
    await expect(voice.muteButton).toHaveAttribute("aria-pressed", "true");
    await tabTo(page, "voice-hang-up");
    await page.keyboard.press("Enter");
    await expect(voice.status).toHaveAttribute("data-status", "ended");
    await expect(voice.startButton).toBeFocused();

    await page.keyboard.press("Escape");
    await expect(voice.dialog).toBeHidden();
    await expect(voice.openButton).toBeFocused();
  });
});

for (const colorScheme of ["light", "dark"] as const) {
  test.describe(`voice axe scan, ${colorScheme}`, () => {
    test.use({ colorScheme });

    test("the voice dialog before, during and after a call has no serious or critical violations", async ({ page, voice }) => {
      // Sign-in, a live call and three full axe scans outgrow the 60 s budget on a busy machine.
      test.slow();
      await voice.open();
      await voice.optionsToggle.click();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await voice.startAndWaitForCall();
      await expect(voice.assistantLines.first()).toBeVisible();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await voice.hangUpButton.click();
      await expect(voice.status).toHaveAttribute("data-status", "ended");
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
    });
  });
}

test.describe("voice at phone width", () => {
  test.use({ viewport: { width: 320, height: 640 }, isMobile: true, hasTouch: true });

  test("everything fits in 320 px and the call works", async ({ page, voice }) => {
    await expect(voice.openButton).toBeInViewport();
    await voice.openButton.tap();
    await expect(voice.dialog).toBeVisible();
    await voice.startButton.tap();
    await expect(voice.status).toHaveAttribute("data-status", /^(listening|speaking)$/, { timeout: 20_000 });
    for (const control of [voice.muteButton, voice.hangUpButton, voice.textInput, voice.textSend, voice.closeButton]) {
      await expect(control).toBeInViewport({ ratio: 1 });
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await voice.hangUpButton.tap();
    await expect(voice.status).toHaveAttribute("data-status", "ended");
  });
});
