import { expect, test } from "./fixtures";
import { expectedReply } from "./support/mock-replies";

test("the rename box holds the conversation's full title, not a shortened one with an ellipsis", async ({ page, signedInChat: chat }) => {
  const question = "How do I plan a two-week trip through Portugal and Spain by train, with a budget of about 2000 euros?";
  await chat.sendAndWaitForReply(question, expectedReply(question));
  await expect(chat.conversation(question)).toBeVisible();

  const menu = await chat.openConversationMenu(question);
  await menu.getByTestId("conversation-rename").click();
  const input = page.getByTestId("conversation-rename-input");
  await expect(input).toHaveValue(question);
  await expect(input).not.toHaveValue(/…/);
});
