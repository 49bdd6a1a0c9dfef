import { expect, test } from "./fixtures";
import { seriousAccessibilityViolations } from "./support/axe";
import { expectedReply } from "./support/mock-replies";
import { signInThroughControlApi } from "./support/sign-in";
import { ChatPage } from "./pages/chat-page";

test.describe("at the narrowest phone width", () => {
  test.use({ viewport: { width: 320, height: 640 } });

  test("a long word wraps, right-to-left text reads right to left, maths renders, the model stays visible, axe is clean", async ({ page, signedInChat: chat }) => {
    // The active model is on screen, inside the viewport.
    await expect(chat.modelPicker).toBeVisible();
    const picker = await chat.modelPicker.boundingBox();
    // Wide enough for the model's name (its icon and "GPT-6.1 Sol"), not squeezed to an icon.
    expect(picker && picker.width >= 130 && picker.x + picker.width <= 320).toBe(true);

    const longWord = `sha256-${"9f86d081884c7d659a2feaa0c55ad015".repeat(6)}`;
    await chat.sendAndWaitForReply(longWord, longWord);
    const noSideways = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    expect(await noSideways()).toBe(true);
    const reply = chat.lastAssistantMessage();
    expect(await reply.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);

    const hebrew = "שלום, מה שלומך היום?";
    await chat.input.fill(hebrew);
    expect(await chat.input.evaluate((element) => getComputedStyle(element).direction)).toBe("rtl");
    await chat.sendButton.click();
    const bubble = chat.userMessages.last().locator("[dir=auto]");
    await expect(bubble).toHaveText(hebrew);
    expect(await bubble.evaluate((element) => getComputedStyle(element).direction)).toBe("rtl");
    await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");

    await chat.sendAndWaitForReply("Euler: $$e^{i\\pi} + 1 = 0$$", "Euler:");
    // The answer's own maths (the collapsed reasoning summary holds a copy too).
    await expect(chat.lastAssistantMessage().locator(".katex").last()).toBeVisible();
    expect(await noSideways()).toBe(true);

    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });
});

test("a login that ends elsewhere lands on the sign-in screen with the reason; after signing in again the refused turn can be sent", async ({ page, mock, account }) => {
  const chat = await signInThroughControlApi(page, mock, account);
  await chat.sendAndWaitForReply("before the sign-out", expectedReply("before the sign-out"));

  // Another tab of the same browser signs out (keeping conversations).
  const other = await page.context().newPage();
  await other.goto("/");
  await new ChatPage(other).signOut();
  await expect(other.getByTestId("sign-in-button")).toBeVisible();
  await other.close();

  await chat.input.fill("after the sign-out");
  await chat.sendButton.click();
  await expect(page.getByTestId("signed-out-reason")).toContainText(/sign-in ended/i);
  await expect(page.getByTestId("sign-in-button")).toBeVisible();

  const again = await signInThroughControlApi(page, mock, account);
  await expect(again.userMessages.first()).toContainText("before the sign-out");

  // Signed in again: the refused turn no longer says "Signed out" nor offers to sign in; it can be sent.
  await expect(again.error).toHaveAttribute("data-error-code", "sent_while_signed_out");
  await expect(again.error).not.toContainText("Signed out");
  await expect(again.error.getByRole("button", { name: "Sign in again" })).toHaveCount(0);
  await again.retryTurnButton.click();
  await expect(again.lastAssistantMessage()).toContainText(expectedReply("after the sign-out", "before the sign-out"));
  await expect(again.lastAssistantMessage()).toHaveAttribute("data-status", "done");
  await expect(again.error).toHaveCount(0);
});
