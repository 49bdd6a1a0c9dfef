import { expect, test } from "./fixtures";
import { seriousAccessibilityViolations } from "./support/axe";
import { tabTo } from "./support/keyboard";
import { expectedReply } from "./support/mock-replies";

test.describe("keyboard only", () => {
  test("sign in and chat with Tab, Enter and Space", async ({ page, signInPage, chatPage: chat, mock, account }) => {
    await signInPage.goto();

    await tabTo(page, "sign-in-button");
    await page.keyboard.press("Enter");
    const userCode = await signInPage.readUserCode();

    // The verification page belongs to another site; approving there is not this app's keyboard story.
    await mock.approve(userCode, account);
    await chat.expectSignedInAs(account.email);

    const fastBefore = await chat.fastToggle.isChecked();
    await tabTo(page, "fast-toggle");
    await page.keyboard.press("Space");
    await expect(chat.fastToggle).toBeChecked({ checked: !fastBefore });
    await page.keyboard.press("Space");
    await expect(chat.fastToggle).toBeChecked({ checked: fastBefore });

    await tabTo(page, "chat-input");
    await page.keyboard.type("typed without a mouse");
    await tabTo(page, "send-button");
    await page.keyboard.press("Enter");

    const reply = chat.lastAssistantMessage();
    await expect(reply).toContainText(expectedReply("typed without a mouse"));
    await expect(reply).toHaveAttribute("data-status", "done");

    await tabTo(page, "sign-out-button");
    await page.keyboard.press("Enter");
    // The sign-out dialog opens with its first choice (keep conversations) focused.
    await expect(page.getByTestId("sign-out-confirm")).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(signInPage.signInButton).toBeVisible();
  });
});

for (const colorScheme of ["light", "dark"] as const) {
  test.describe(`axe scan, ${colorScheme}`, () => {
    test.use({ colorScheme });

    test("the sign-in screen has no serious or critical violations", async ({ page, signInPage }) => {
      await signInPage.goto();
      await expect(signInPage.signInButton).toBeVisible();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
    });

    test("the pending screen has no serious or critical violations", async ({ page, signInPage }) => {
      await signInPage.goto();
      await signInPage.startSignIn();
      await expect(signInPage.qrCode).toHaveJSProperty("tagName", "IMG");
      await expect(signInPage.countdown).toBeVisible();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
    });

    test("the chat screen has no serious or critical violations", async ({ page, signedInChat: chat }) => {
      await chat.sendAndWaitForReply("check my contrast", expectedReply("check my contrast"));
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
    });

    for (const width of [390, 1280]) {
      test.describe(`${width} px wide`, () => {
        test.use({ viewport: { width, height: 800 } });

        test("a failed turn (its dimmed partial answer and Reasoning label) has no serious or critical violations", async ({ page, signedInChat: chat, mock, account }) => {
          // Sign-in, a streamed turn that breaks, and a full axe scan: over 60 s on a busy 2-core machine.
          test.slow();
          await mock.addFault({ fault: "stream_cut", accountId: account.accountId, times: 1 });
          await chat.send("cut me off while I am reasoning about contrast");
          await expect(chat.error).toBeVisible();
          const failedAnswer = page.locator('[data-testid="message-assistant"][data-failed="true"]');
          await expect(failedAnswer).toHaveCount(1);
          await expect(failedAnswer.getByTestId("reasoning-summary").locator("summary")).toHaveText("Reasoning");
          expect(await seriousAccessibilityViolations(page)).toEqual([]);
        });
      });
    }
  });
}
