import { expect, test } from "./fixtures";
import { ChatPage } from "./pages/chat-page";
import { TurnControls } from "./pages/turn-controls";
import { expectedReply, longMessage } from "./support/mock-replies";
import { messagesOf } from "./support/recorded-input";

/** The mock echoes Continue's request (docs/mock-upstream.md): its reply starts with this. */
const CONTINUED_REPLY_START = 'You said: "Your previous answer was cut off.';

test.describe("no answer lost to a reload", () => {
  test("a reload mid-answer keeps the text so far, marked interrupted; Continue carries it on", async ({ page, signedInChat: chat, mock, account }) => {
    // Sign-in, a paced stream, a reload and a second answer: Playwright's slow budget on a busy machine.
    test.slow();
    const turns = new TurnControls(page);
    // About 30 words at 300 ms each: the answer streams for about ten seconds, long enough to reload in.
    await mock.addFault({ fault: "slow_stream", accountId: account.accountId, delayMs: 300 });
    const question = longMessage(30, "tale");
    // The browser's store holds some of the answer while it still streams.
    const id = await turns.sendUntilPartSaved(chat, account.accountId, question, 'You said: "tale1 tale2');
    await expect(chat.assistantMessages.last()).toHaveAttribute("data-status", "streaming");
    await page.reload();
    await chat.expectSignedInAs(account.email);

    const restored = await turns.savedLastAnswer(account.accountId, id);
    expect(restored?.interrupted).toBe(true);
    const savedText = restored!.text.trim();
    expect(savedText.length).toBeLessThan(expectedReply(question).length);
    const answer = chat.assistantMessages.last();
    await expect(answer).toHaveAttribute("data-interrupted", "true");
    await expect(answer).toContainText(savedText);
    await expect(answer).toContainText("Interrupted");
    await expect(turns.continueButton).toBeVisible();
    await expect(turns.interruptedRetryButton).toBeVisible();
    // Not a failed turn: the question stands, nothing is left out of what the model sees.
    await expect(chat.failedUserMessages).toHaveCount(0);
    await expect(chat.error).toHaveCount(0);

    const requestsBefore = (await mock.responsesRequestsOf(account.accountId)).length;
    await turns.continueButton.click();
    await expect(answer).toContainText(CONTINUED_REPLY_START);
    await expect(answer).toHaveAttribute("data-status", "done");
    await expect(answer).not.toHaveAttribute("data-interrupted", "true");
    // The same answer, carried on: the saved text first, then the continuation.
    await expect(chat.assistantMessages).toHaveCount(1);
    expect(await answer.textContent()).toContain(savedText);
    await expect(turns.continueButton).toHaveCount(0);

    const requests = await mock.responsesRequestsOf(account.accountId);
    expect(requests).toHaveLength(requestsBefore + 1);
    // The conversation: the chat's default model speaks the lite dialect, whose instructions come
    // first as a developer message.
    const sent = messagesOf(requests.at(-1)).filter((message) => message.role !== "developer");
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(sent[1]!.text.trim()).toBe(savedText);

    // What was continued is kept as one whole answer.
    await page.reload();
    await chat.expectSignedInAs(account.email);
    await expect(chat.assistantMessages.last()).toContainText(CONTINUED_REPLY_START);
    await expect(turns.interruptedAnswers).toHaveCount(0);
  });

  test.describe("on a phone", () => {
    test.use({ viewport: { width: 390, height: 800 } });

    test("a closed tab keeps the text so far; Try again answers afresh and keeps the cut-off text as version 1", async ({ page, context, signedInChat: chat, mock, account }) => {
      test.slow();
      const turns = new TurnControls(page);
      await mock.addFault({ fault: "slow_stream", accountId: account.accountId, delayMs: 300 });
      const question = longMessage(30, "saga");
      const id = await turns.sendUntilPartSaved(chat, account.accountId, question, 'You said: "saga1 saga2');
      await page.close();

      const again = await context.newPage();
      await again.goto(`/?c=${id}`);
      const chatAgain = new ChatPage(again);
      const turnsAgain = new TurnControls(again);
      await chatAgain.expectSignedInAs(account.email);
      const answer = chatAgain.assistantMessages.last();
      await expect(answer).toHaveAttribute("data-interrupted", "true");
      const savedText = (await turnsAgain.savedLastAnswer(account.accountId, id))!.text.trim();
      await expect(answer).toContainText(savedText);
      await expect(turnsAgain.continueButton).toBeInViewport();
      await expect(turnsAgain.interruptedRetryButton).toBeInViewport();
      expect(await again.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

      await turnsAgain.interruptedRetryButton.click();
      await expect(answer).toContainText(expectedReply(question));
      await expect(answer).toHaveAttribute("data-status", "done");
      await expect(answer).not.toHaveAttribute("data-interrupted", "true");
      const versions = turnsAgain.versions(answer);
      await expect(versions.label).toHaveText("2 / 2");
      await versions.previous.click();
      await expect(versions.label).toHaveText("1 / 2");
      await expect(answer).toContainText(savedText);
      await expect(answer).not.toContainText(expectedReply(question));
    });
  });
});
