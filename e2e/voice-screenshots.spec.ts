import { uniqueAccount } from "./support/accounts";
import { saveScreenshot } from "./support/screenshots";
import { expect, test as base } from "./support/voice-fixtures";

// A readable email for the docs picture; the accountId stays unique, which is what isolates tests.
const test = base.extend({
  account: async ({}, provide, testInfo) => {
    await provide({ ...uniqueAccount(testInfo.title), email: "ada@example.com" });
  },
});

const variants = [
  { name: "light", use: { colorScheme: "light" as const } },
  { name: "phone", use: { colorScheme: "light" as const, viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true } },
];

for (const variant of variants) {
  test.describe(`voice screenshot, ${variant.name}`, () => {
    test.use(variant.use);

    test(`voice-${variant.name}`, async ({ page, voice }, testInfo) => {
      await voice.open();
      await voice.startAndWaitForCall();
      await voice.say("What can I ask you?");
      await expect(voice.assistantLines.last()).toContainText("I heard you say: What can I ask you?");
      await expect(voice.assistantLines.last()).toHaveAttribute("data-done", "true");
      await saveScreenshot(page, testInfo, `voice-${variant.name}`);
      await voice.hangUpButton.click();
    });
  });
}
