import { expect, test } from "./fixtures";
import { expectedReply, longMessage } from "./support/mock-replies";

test("stopping a reply mid-stream cancels the upstream request", async ({ signedInChat: chat, mock, account }) => {
  // About 120 words at one word per delta, paced at 150 ms: many seconds of streaming to stop in, even
  // on a busy machine (at the suite's 40 ms a loaded browser saw the reply finish before it could stop it).
  await mock.addFault({ fault: "slow_stream", accountId: account.accountId, delayMs: 150 });
  const message = longMessage(120, "stop");
  const fullReply = expectedReply(message);
  await chat.send(message);

  // Pinned by position: after the next message, `lastAssistantMessage()` is a different one. Counted
  // once the new reply is on the page and streaming, not right after sending (it may not exist yet).
  await expect(chat.assistantMessages.last()).toHaveAttribute("data-status", "streaming");
  const stoppedIndex = (await chat.assistantMessages.count()) - 1;
  expect(stoppedIndex).toBeGreaterThanOrEqual(0);
  const reply = chat.assistantMessages.nth(stoppedIndex);
  await expect(reply).toHaveAttribute("data-status", "streaming");
  await expect(reply).toContainText("You said");
  await chat.stopButton.click();

  await expect(chat.stopButton).toBeHidden();
  await expect(reply).not.toHaveAttribute("data-status", "streaming");
  // Status and text in one read: the text the reply had when it stopped streaming.
  const atStop = await chat.snapshot(reply);
  expect(atStop.status).toBe("done");
  expect(atStop.text).toContain("You said");
  expect(atStop.text).not.toContain(fullReply);

  await expect
    .poll(async () => (await mock.responsesRequestsOf(account.accountId)).map((request) => request.aborted), {
      message: "the mock saw the app's /responses request aborted",
    })
    .toEqual([true]);

  // The upstream stream is gone now: nothing more can have been added to the stopped reply.
  expect(await chat.snapshot(reply)).toEqual(atStop);

  // The composer is usable again after a stop. Once a whole new reply has streamed through the
  // same page, anything left over from the stopped one would have arrived too: it must not have.
  await chat.sendAndWaitForReply("after the stop", expectedReply("after the stop"));
  await expect(chat.assistantMessages).toHaveCount(stoppedIndex + 2);
  expect(await chat.snapshot(reply)).toEqual(atStop);
});
