/**
 * Issue #19's UI nits around the conversation, on a phone (390 px) and a laptop (1280 px): the
 * conversation drawer behaves like the app's dialogs, the New chat button reads apart from the
 * usage meter, the effort picker shows its whole value, the header names the open conversation
 * rather than the sign-in, and the Picture switch turns itself off once its message is sent.
 */
import { expect, test } from "./fixtures";
import { ChatChrome } from "./pages/chat-chrome";
import { expectedReply } from "./support/mock-replies";
import { saveScreenshot } from "./support/screenshots";

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1280, height: 800 };

test.describe("on a phone", () => {
  test.use({ viewport: PHONE });

  test("the conversation drawer takes the focus, keeps Tab inside, and Escape closes it and gives the focus back", async ({ page, signedInChat: chat }, testInfo) => {
    await chat.sendAndWaitForReply("a topic for the drawer", expectedReply("a topic for the drawer"));
    const chrome = new ChatChrome(page);
    await chrome.openDrawer();
    await expect(chrome.drawerPanel).toHaveAttribute("aria-modal", "true");
    await expect.poll(() => chrome.focusIsIn(chrome.drawerPanel)).toBe(true);
    await saveScreenshot(page, testInfo, "nits-drawer-390");

    const stops = await chrome.tabStopsIn(chrome.drawerPanel);
    expect(stops).toBeGreaterThan(2);
    for (const key of ["Tab", "Shift+Tab"]) {
      for (let press = 0; press < stops + 2; press += 1) {
        await page.keyboard.press(key);
        expect(await chrome.focusIsIn(chrome.drawerPanel), `focus after ${press + 1} × ${key}`).toBe(true);
      }
    }

    // Escape closes what it belongs to first: a row's menu, a rename; then the drawer.
    await chrome.drawerPanel.getByTestId("conversation-menu-button").first().click();
    await expect(page.getByTestId("conversation-menu")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("conversation-menu")).toBeHidden();
    await expect(chrome.conversationsDrawer).toBeVisible();
    await chrome.drawerPanel.getByTestId("conversation-menu-button").first().click();
    await page.getByTestId("conversation-rename").click();
    const rename = chrome.drawerPanel.getByTestId("conversation-rename-input");
    await expect(rename).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(rename).toHaveCount(0);
    await expect(chrome.conversationsDrawer).toBeVisible();

    await page.keyboard.press("Escape");
    await expect(chrome.conversationsDrawer).toBeHidden();
    await expect(chrome.conversationsButton).toBeFocused();
  });
});

for (const viewport of [PHONE, LAPTOP]) {
  test.describe(`at ${viewport.width} px`, () => {
    test.use({ viewport });

    test("New chat stands apart from the usage meter, which says what its number is", async ({ page, signedInChat: chat }, testInfo) => {
      await chat.sendAndWaitForReply("how much is left", expectedReply("how much is left"));
      const chrome = new ChatChrome(page);
      await expect(chrome.usageMeter).toBeVisible();
      const button = (await chrome.newChatButton.boundingBox())!;
      const meter = (await chrome.usageMeter.boundingBox())!;
      expect(meter.x - (button.x + button.width)).toBeGreaterThanOrEqual(16);
      // What is on screen (innerText leaves out what CSS hides), not merely in the page.
      expect(await chrome.usageMeter.evaluate((element) => (element as HTMLElement).innerText)).toMatch(/\d+% used/);
      await expect(chrome.usageMeter).toBeInViewport({ ratio: 1 });
      await expect(chat.signOutButton).toBeInViewport({ ratio: 1 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await saveScreenshot(page, testInfo, `nits-header-${viewport.width}`);
      // Nothing of the meter lies over the button: a click reaches it.
      await chrome.newChatButton.click({ timeout: 5_000 });
      await expect(chat.userMessages).toHaveCount(0);
    });

    test("the effort picker shows each effort's whole name", async ({ page, signedInChat: chat }, testInfo) => {
      const chrome = new ChatChrome(page);
      await expect(chat.modelPicker).toBeEnabled();
      const values = await chrome.reasoningEffort.locator("option").evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
      expect(values.length).toBeGreaterThan(1);
      for (const value of values) {
        await chrome.reasoningEffort.selectOption(value);
        const fit = await chrome.selectTextFit(chrome.reasoningEffort);
        expect(fit.needed, `“${fit.label}” in ${fit.available.toFixed(1)} px`).toBeLessThanOrEqual(fit.available);
      }
      await chrome.reasoningEffort.selectOption("medium");
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await saveScreenshot(page, testInfo, `nits-composer-${viewport.width}`);
    });

    test("on a laptop the composer's controls fit one row, the voice button beside the others", async ({ page, signedInChat: chat }) => {
      test.skip(viewport.width < 1024, "a phone wraps the controls onto two rows by design");
      await expect(chat.modelPicker).toBeEnabled();
      const voiceButton = page.getByTestId("voice-button");
      await expect(voiceButton).toBeVisible();
      const [pickerBox, voiceBox] = [await chat.modelPicker.boundingBox(), await voiceButton.boundingBox()];
      expect(pickerBox && voiceBox).toBeTruthy();
      // Same row: the two vertical centres are within a few pixels (a wrapped button is ~36 px lower).
      expect(Math.abs(pickerBox!.y + pickerBox!.height / 2 - (voiceBox!.y + voiceBox!.height / 2))).toBeLessThan(6);
    });

    test("signed in, the header and the tab name the open conversation, not the sign-in", async ({ page, signedInChat: chat }) => {
      const chrome = new ChatChrome(page);
      await expect(page).toHaveTitle("New chat");
      await expect(chrome.header).not.toContainText("Sign in with ChatGPT");
      if (viewport.width >= 768) await expect(chrome.headerTitle).toHaveText("New chat");
      await chat.sendAndWaitForReply("tides along the coast", expectedReply("tides along the coast"));
      await expect(page).toHaveTitle("tides along the coast");
      if (viewport.width >= 768) await expect(chrome.headerTitle).toHaveText("tides along the coast");
    });

    test("the Picture switch turns off once its message is sent", async ({ page, signedInChat: chat }, testInfo) => {
      const chrome = new ChatChrome(page);
      await chrome.imageToggle.click();
      await expect(chrome.imageToggle).toHaveAttribute("aria-checked", "true");
      await chat.send("a lighthouse at dusk");
      await expect(chrome.imageToggle).toHaveAttribute("aria-checked", "false");
      await expect(chat.lastAssistantMessage().getByTestId("generated-image")).toBeVisible();
      await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");
      await saveScreenshot(page, testInfo, `nits-picture-${viewport.width}`);
    });
  });
}
