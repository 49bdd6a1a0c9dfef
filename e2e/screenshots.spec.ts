import { expect, test as base } from "./fixtures";
import { uniqueAccount } from "./support/accounts";
import { expectedReply } from "./support/mock-replies";
import { saveScreenshot } from "./support/screenshots";

// A readable email for the README pictures; the accountId stays unique, which is what isolates tests.
const test = base.extend({
  account: async ({}, provide, testInfo) => {
    await provide({ ...uniqueAccount(testInfo.title), email: "ada@example.com" });
  },
});

const variants = [
  { name: "light", use: { colorScheme: "light" as const } },
  { name: "dark", use: { colorScheme: "dark" as const } },
  {
    name: "phone",
    use: {
      colorScheme: "light" as const,
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    },
  },
];

for (const variant of variants) {
  test.describe(`screenshots, ${variant.name}`, () => {
    test.use(variant.use);

    test(`sign-in-${variant.name}`, async ({ page, signInPage }, testInfo) => {
      await signInPage.goto();
      await expect(signInPage.signInButton).toBeVisible();
      await expect(signInPage.consentNote).toBeVisible();
      await saveScreenshot(page, testInfo, `sign-in-${variant.name}`);
    });

    test(`pending-${variant.name}`, async ({ page, signInPage }, testInfo) => {
      await signInPage.goto();
      await signInPage.startSignIn();
      await expect(signInPage.countdown).toHaveText(/\d:\d{2}/);
      // The QR code is left out on narrow screens (the phone is the scanner); wait for it where it is shown.
      if (variant.name !== "phone") await expect(signInPage.qrCode).toHaveJSProperty("tagName", "IMG");
      await saveScreenshot(page, testInfo, `pending-${variant.name}`);
    });

    test(`chat-${variant.name}`, async ({ page, signedInChat: chat }, testInfo) => {
      await chat.sendAndWaitForReply(
        "What can I do with this app?",
        expectedReply("What can I do with this app?"),
      );
      await chat.sendAndWaitForReply(
        "Summarise that in one line",
        expectedReply("Summarise that in one line", "What can I do with this app?"),
      );
      await saveScreenshot(page, testInfo, `chat-${variant.name}`);
    });
  });
}
