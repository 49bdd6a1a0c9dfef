import { expect, test } from "./fixtures";
import { expectedReply, longMessage } from "./support/mock-replies";

test.describe("chat", () => {
  test("a picked model streams its reply, and the second turn carries the first turn's context", async ({
    signedInChat: chat,
    mock,
    account,
  }) => {
    await chat.selectModel("gpt-6-astra");
    // A slow pace for this reply, so a busy machine still renders (and the poll below sees) a partial reply.
    await mock.addFault({ fault: "slow_stream", accountId: account.accountId, delayMs: 150 });

    // About 50 words, one per delta: the reply streams for roughly seven seconds.
    const firstMessage = longMessage(48, "alpha");
    const firstReply = expectedReply(firstMessage);
    await chat.send(firstMessage);

    const reply = chat.lastAssistantMessage();
    let partialText = "";
    await expect
      .poll(
        async () => {
          const { status, text } = await chat.snapshot(reply);
          if (status === "streaming" && text.includes("You said")) partialText = text;
          return partialText !== "";
        },
        { message: "a partly streamed reply was visible before the end", intervals: [50] },
      )
      .toBe(true);
    expect(partialText).not.toContain(firstReply);

    await expect(reply).toContainText(firstReply);
    await expect(reply).toHaveAttribute("data-status", "done");
    await expect(chat.stopButton).toBeHidden();

    const [firstRequest] = await mock.responsesRequestsOf(account.accountId);
    expect(firstRequest?.body).toMatchObject({ model: "gpt-6-astra" });

    const secondMessage = "and what came before";
    const secondReply = await chat.sendAndWaitForReply(secondMessage, expectedReply(secondMessage, firstMessage));
    await expect(secondReply).toContainText(`Earlier you said: "${firstMessage}"`);
    await expect(chat.userMessages).toHaveCount(2);
    await expect(chat.assistantMessages).toHaveCount(2);
  });

  test("the chosen reasoning effort reaches the model backend", async ({ signedInChat: chat, mock, account }) => {
    await chat.selectModel("gpt-5.5");
    await chat.reasoningEffort.selectOption("high");

    await chat.sendAndWaitForReply("think hard", expectedReply("think hard"));

    const [request] = await mock.responsesRequestsOf(account.accountId);
    expect(request?.body).toMatchObject({ model: "gpt-5.5", reasoning: { effort: "high" } });
  });
});
