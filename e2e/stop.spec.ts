import { expect, test } from "./fixtures";
import { expectedReply, longMessage } from "./support/mock-replies";

test("stopping a reply mid-stream cancels the upstream request", async ({ signedInChat: chat, mock, account }) => {
  // About 120 words at one word per delta: several seconds of streaming to stop in.
  const message = longMessage(120, "stop");
  await chat.send(message);

  const reply = chat.lastAssistantMessage();
  await expect(reply).toHaveAttribute("data-status", "streaming");
  await expect(reply).toContainText("You said");
  await chat.stopButton.click();

  await expect(chat.stopButton).toBeHidden();
  await expect(reply).not.toHaveAttribute("data-status", "streaming");
  await expect(reply).not.toContainText(expectedReply(message));

  await expect
    .poll(async () => (await mock.responsesRequestsOf(account.accountId)).map((request) => request.aborted), {
      message: "the mock saw the app's /responses request aborted",
    })
    .toEqual([true]);

  // The composer is usable again after a stop.
  await chat.sendAndWaitForReply("after the stop", expectedReply("after the stop"));
});
