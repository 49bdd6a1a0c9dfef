import { expect, test } from "./fixtures";
import { TurnControls } from "./pages/turn-controls";
import { expectedReply, longMessage } from "./support/mock-replies";
import { messagesOf } from "./support/recorded-input";

for (const width of [1280, 390]) {
  test.describe(`regenerate keeps versions (${width} px)`, () => {
    test.use({ viewport: { width, height: 800 } });

    test("‹ 1 / 2 › switches between a turn's answers, the one shown is the next turn's context, and both survive a reload", async ({ page, signedInChat: chat, mock, account }) => {
      // Sign-in, a paced stream, a regeneration, a reload and a follow-up: the slow budget on a busy machine.
      test.slow();
      const turns = new TurnControls(page);
      // Version 1 is an answer stopped part-way (the mock answers a question the same way each
      // time), so the two versions read differently.
      await mock.addFault({ fault: "slow_stream", accountId: account.accountId, delayMs: 250 });
      const question = longMessage(40, "verse");
      const fullReply = expectedReply(question);
      await chat.send(question);
      const answer = chat.assistantMessages.first();
      await expect(answer).toHaveAttribute("data-status", "streaming");
      await expect(answer).toContainText('You said: "verse1 verse2');
      await chat.stopButton.click();
      await expect(answer).toHaveAttribute("data-status", "done");
      const first = (await answer.getByTestId("answer-text").textContent())!.trim();
      expect(fullReply.startsWith(first)).toBe(true);
      expect(first.length).toBeLessThan(fullReply.length);
      // One version only: no switcher yet.
      await expect(turns.versions(answer).label).toHaveCount(0);

      await chat.regenerateButton.click();
      await expect(answer).toContainText(fullReply);
      await expect(answer).toHaveAttribute("data-status", "done");
      const versions = turns.versions(answer);
      await expect(versions.label).toHaveText("2 / 2");
      await expect(versions.next).toBeDisabled();
      await expect(chat.assistantMessages).toHaveCount(1);

      await versions.previous.click();
      await expect(versions.label).toHaveText("1 / 2");
      await expect(answer.getByTestId("answer-text")).toHaveText(first);
      await expect(versions.previous).toBeDisabled();

      // Both versions, and the one shown, come back after a reload.
      await page.reload();
      await chat.expectSignedInAs(account.email);
      await expect(versions.label).toHaveText("1 / 2");
      await expect(answer.getByTestId("answer-text")).toHaveText(first);
      await versions.next.click();
      await expect(versions.label).toHaveText("2 / 2");
      await expect(answer).toContainText(fullReply);
      await versions.previous.click();
      await expect(versions.label).toHaveText("1 / 2");
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);

      // The next turn carries the version on screen, and only that one.
      await chat.sendAndWaitForReply("and then?", expectedReply("and then?", question));
      const last = (await mock.responsesRequestsOf(account.accountId)).at(-1)!;
      const answersSent = messagesOf(last).filter((message) => message.role === "assistant");
      expect(answersSent.map((message) => message.text.trim())).toEqual([first]);
    });
  });
}
