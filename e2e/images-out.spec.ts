import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { expectedReply } from "./support/mock-replies";

/** Notes, from inside the page, whether a partial image was ever on screen (they pass quickly). */
async function watchForPartialImages(page: Page): Promise<void> {
  await page.evaluate(() => {
    const flags = window as unknown as { sawPartialImage?: boolean };
    flags.sawPartialImage = false;
    new MutationObserver(() => {
      if (document.querySelector('[data-testid="image-partial"] img')) flags.sawPartialImage = true;
    }).observe(document.body, { childList: true, subtree: true });
  });
}

const sawPartialImage = (page: Page) => page.evaluate(() => (window as unknown as { sawPartialImage?: boolean }).sawPartialImage === true);

test.describe("images out", () => {
  test("asking for a picture shows partial images as they stream, then the final one with a download, kept after a reload", async ({ page, signedInChat: chat, mock, account }) => {
    await watchForPartialImages(page);
    // A slow pace, so each partial image stays on screen long enough to be rendered on a busy machine.
    await mock.addFault({ fault: "slow_stream", accountId: account.accountId, delayMs: 400 });
    await page.getByTestId("image-toggle").click();
    await expect(page.getByTestId("image-toggle")).toHaveAttribute("aria-checked", "true");
    await chat.input.fill("a red fox in the snow");
    await chat.sendButton.click();

    const final = chat.lastAssistantMessage().getByTestId("generated-image");
    await expect(final).toBeVisible();
    await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");
    expect(await sawPartialImage(page)).toBe(true);
    await expect(chat.lastAssistantMessage().getByTestId("image-partial")).toHaveCount(0);
    expect(await final.locator("img").evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(256);
    await expect(final.getByTestId("download-image")).toHaveAttribute("download", /\.png$/);

    const [request] = await mock.responsesRequestsOf(account.accountId);
    expect((request?.body as { tools?: { type: string }[] }).tools?.map((tool) => tool.type)).toEqual(["image_generation"]);

    await expect.poll(() => chat.conversationIdInUrl()).not.toBeNull();
    await page.reload();
    await expect(chat.lastAssistantMessage().getByTestId("generated-image")).toBeVisible();

    // A text follow-up works: the generated image is not sent back upstream. The switch is off (it turns off once its message is sent).
    await expect(page.getByTestId("image-toggle")).toHaveAttribute("aria-checked", "false");
    await chat.sendAndWaitForReply("now a blue one", expectedReply("now a blue one", "a red fox in the snow"));
    await expect(chat.assistantMessages).toHaveCount(2);
    const followUp = (await mock.responsesRequestsOf(account.accountId)).at(-1);
    expect(JSON.stringify(followUp?.body)).not.toContain("image_generation_call");
  });

  test("the /image command asks for a picture once; a text message after it gets text", async ({ signedInChat: chat, mock, account }) => {
    await chat.input.fill("/image a small boat");
    await chat.sendButton.click();
    await expect(chat.userMessages.last()).toHaveText(/^\s*a small boat\s*$/);
    await expect(chat.lastAssistantMessage().getByTestId("generated-image")).toBeVisible();
    await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");

    await chat.sendAndWaitForReply("thanks", expectedReply("thanks", "a small boat"));
    const last = (await mock.responsesRequestsOf(account.accountId)).at(-1);
    expect(last?.body).not.toHaveProperty("tools");
  });

  test("a refused picture, a usage limit and a broken stream are each reported as a failed turn", async ({ signedInChat: chat, mock, account }) => {
    await chat.input.fill("/image something forbidden [[mock:image_refusal]]");
    await chat.sendButton.click();
    await expect(chat.error).toContainText(/rejected by the safety system/);
    // A refusal, not an interruption: asking the same again gets the same answer, so no Try again.
    await expect(chat.error).toHaveAttribute("data-error-code", "refused");
    await expect(chat.error).not.toContainText("Answer interrupted");
    await expect(chat.retryTurnButton).toHaveCount(0);

    await mock.addFault({ fault: "usage_limit", accountId: account.accountId, times: 1 });
    await chat.input.fill("/image over the limit");
    await chat.sendButton.click();
    await expect(chat.error).toHaveAttribute("data-error-code", "usage_limit");

    await mock.addFault({ fault: "stream_cut", accountId: account.accountId, times: 1 });
    await chat.input.fill("/image cut short");
    await chat.sendButton.click();
    await expect(chat.error).toHaveAttribute("data-error-code", "stream_failed");
    await expect(chat.failedUserMessages).toHaveCount(3);
  });
});
