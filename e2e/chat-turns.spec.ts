import { expect, test } from "./fixtures";
import { E2E_MAX_REQUEST_BYTES } from "./support/servers";
import { expectedReply } from "./support/mock-replies";
import { userTextsOf } from "./support/recorded-input";

test.describe("turns that fail cleanly", () => {
  test("a double-click on Send sends once and does not stop the answer", async ({ signedInChat: chat, mock, account }) => {
    await chat.input.fill("clicked twice");
    await chat.sendButton.dblclick();

    const reply = chat.lastAssistantMessage();
    await expect(reply).toContainText(expectedReply("clicked twice"));
    await expect(reply).toHaveAttribute("data-status", "done");
    await expect(chat.userMessages).toHaveCount(1);
    const requests = await mock.responsesRequestsOf(account.accountId);
    expect(requests.map((request) => request.aborted)).toEqual([false]);
  });

  test("a failed turn is marked, left out of later requests, and can be removed", async ({ signedInChat: chat, mock, account }) => {
    await mock.addFault({ fault: "server_error", accountId: account.accountId, times: 1 });
    await chat.send("this one fails");
    await expect(chat.error).toHaveAttribute("data-error-code", "responses_request_failed");
    await expect(chat.failedUserMessages).toHaveCount(1);
    await expect(chat.failedUserMessages).toContainText("this one fails");

    await chat.sendAndWaitForReply("this one works", expectedReply("this one works"));
    const [failed, next] = await mock.responsesRequestsOf(account.accountId);
    expect(userTextsOf(failed)).toEqual(["this one fails"]);
    expect(userTextsOf(next)).toEqual(["this one works"]);
    // The failed turn stays in view, with its actions, but is no longer the alert.
    await expect(chat.error).toBeHidden();
    await expect(chat.failedUserMessages).toHaveCount(1);

    await chat.removeTurnButton.click();
    await expect(chat.failedUserMessages).toHaveCount(0);
    await expect(chat.userMessages).toHaveCount(1);
    await expect(chat.userMessages).toContainText("this one works");
  });

  test("a failed turn can be retried and then answers", async ({ signedInChat: chat, mock, account }) => {
    await mock.addFault({ fault: "stream_cut", accountId: account.accountId, times: 1 });
    await chat.send("cut me off");
    await expect(chat.error).toBeVisible();
    await expect(chat.retryTurnButton).toBeVisible();

    await chat.retryTurnButton.click();
    await expect(chat.lastAssistantMessage()).toContainText(expectedReply("cut me off"));
    await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");
    await expect(chat.failedUserMessages).toHaveCount(0);
    await expect(chat.userMessages).toHaveCount(1);
    await expect(chat.assistantMessages).toHaveCount(1);
    const requests = await mock.responsesRequestsOf(account.accountId);
    expect(userTextsOf(requests.at(-1))).toEqual(["cut me off"]);
  });

  test("a failed turn can be edited in the message box and sent again", async ({ signedInChat: chat, mock, account }) => {
    await mock.addFault({ fault: "server_error", accountId: account.accountId, times: 1 });
    await chat.send("typo here");
    await expect(chat.error).toBeVisible();
    await chat.editTurnButton.click();
    await expect(chat.input).toHaveValue("typo here");
    await expect(chat.userMessages).toHaveCount(0);

    await chat.input.fill("fixed text");
    await chat.sendButton.click();
    await expect(chat.lastAssistantMessage()).toContainText(expectedReply("fixed text"));
    const requests = await mock.responsesRequestsOf(account.accountId);
    expect(userTextsOf(requests.at(-1))).toEqual(["fixed text"]);
  });

  test("editing an earlier message branches from there: the new branch shows, the later turns stay in the earlier version", async ({ signedInChat: chat, mock, account }) => {
    await chat.sendAndWaitForReply("first question", expectedReply("first question"));
    await chat.sendAndWaitForReply("second question", expectedReply("second question", "first question"));

    await chat.editUserMessage(chat.userMessages.first(), "a better first question");
    await expect(chat.userMessages).toHaveCount(1);
    await expect(chat.assistantMessages).toHaveCount(1);
    await expect(chat.lastAssistantMessage()).toContainText(expectedReply("a better first question"));
    await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");
    await expect(chat.userMessages.first().getByTestId("question-version-label")).toHaveText("2 / 2");

    const requests = await mock.responsesRequestsOf(account.accountId);
    expect(requests).toHaveLength(3);
    expect(userTextsOf(requests.at(-1))).toEqual(["a better first question"]);
  });

  test("a usage limit offers no retry and shows one reset time in the alert and the meter", async ({ signedInChat: chat, mock, account }) => {
    await chat.sendAndWaitForReply("warm up", expectedReply("warm up"));
    await mock.addFault({ fault: "usage_limit", accountId: account.accountId, times: 1 });
    await chat.send("over the limit");
    await expect(chat.error).toHaveAttribute("data-error-code", "usage_limit");
    await expect(chat.retryTurnButton).toHaveCount(0);

    const meter = chat.usageMeter.getByRole("meter");
    await expect(meter).toHaveAttribute("aria-valuenow", "100");
    const meterText = (await meter.getAttribute("aria-valuetext")) ?? "";
    const resetTime = /resets (.+)$/.exec(meterText)?.[1];
    expect(resetTime, `a reset time in "${meterText}"`).toBeTruthy();
    await expect(chat.error).toContainText(`resets at ${resetTime}`);
  });
});

test("a conversation too long to send says so and offers a new chat carrying the last exchange", async ({ signedInChat: chat, mock, account }) => {
  await chat.sendAndWaitForReply("keep this exchange", expectedReply("keep this exchange"));
  // Larger than the e2e app's body limit (E2E_MAX_REQUEST_BYTES): refused before it reaches upstream.
  const oversized = `big ${"lorem ".repeat(Math.ceil(E2E_MAX_REQUEST_BYTES / 6) + 1000)}`.trim();
  await chat.input.fill(oversized);
  await chat.sendButton.click();
  await expect(chat.error).toHaveAttribute("data-error-code", "responses_request_too_large");
  await expect(chat.error).toContainText(/too long/i);
  await expect(chat.retryTurnButton).toHaveCount(0);

  await chat.page.getByTestId("new-chat-with-last-turn").click();
  await expect(chat.error).toBeHidden();
  await expect(chat.userMessages).toHaveCount(1);
  await expect(chat.userMessages).toContainText("keep this exchange");
  await expect(chat.assistantMessages).toHaveCount(1);
  expect((await chat.input.inputValue()).length).toBe(oversized.length);

  await chat.input.fill("follow-up in the new chat");
  await chat.sendButton.click();
  await expect(chat.lastAssistantMessage()).toContainText(expectedReply("follow-up in the new chat", "keep this exchange"));
  const requests = await mock.responsesRequestsOf(account.accountId);
  expect(requests).toHaveLength(2);
  expect(userTextsOf(requests.at(-1))).toEqual(["keep this exchange", "follow-up in the new chat"]);
});
