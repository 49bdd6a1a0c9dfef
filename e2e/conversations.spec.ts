import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { ChatPage } from "./pages/chat-page";
import { uniqueAccount } from "./support/accounts";
import { expectedReply, longMessage } from "./support/mock-replies";
import { userTextsOf } from "./support/recorded-input";
import { keepChatsOnThisDevice, signInThroughControlApi } from "./support/sign-in";
import { storeConversations, storedConversation } from "./support/stored-conversations";

/** Reads a draft straight from the browser's IndexedDB (the app's own database), as a reload would. */
function storedDraft(page: Page, accountId: string, key: string): Promise<string | null> {
  return page.evaluate(
    ([account, draftKey]) =>
      new Promise<string | null>((resolve, reject) => {
        const request = indexedDB.open("lwc-chat");
        request.onerror = () => reject(request.error);
        request.onsuccess = () => {
          const db = request.result;
          const get = db.transaction("drafts").objectStore("drafts").get([account, draftKey]);
          get.onsuccess = () => {
            resolve((get.result as { text?: string } | undefined)?.text ?? null);
            db.close();
          };
          get.onerror = () => reject(get.error);
        };
      }),
    [accountId, key] as const,
  );
}

test.describe("conversations kept in the browser", () => {
  test("a reload brings the conversation back, and a follow-up carries its context upstream", async ({ page, signedInChat: chat, mock, account }) => {
    await chat.sendAndWaitForReply("my name is Ada", expectedReply("my name is Ada"));
    await expect.poll(() => chat.conversationIdInUrl()).not.toBeNull();
    const id = chat.conversationIdInUrl();

    await page.reload();
    await expect(chat.userMessages).toHaveCount(1);
    await expect(chat.userMessages).toContainText("my name is Ada");
    await expect(chat.lastAssistantMessage()).toContainText(expectedReply("my name is Ada"));
    expect(chat.conversationIdInUrl()).toBe(id);

    await chat.sendAndWaitForReply("what is my name?", expectedReply("what is my name?", "my name is Ada"));
    const requests = await mock.responsesRequestsOf(account.accountId);
    expect(userTextsOf(requests.at(-1))).toEqual(["my name is Ada", "what is my name?"]);
  });

  test("a new tab opens the conversation that was open, and an unsent draft survives a reload", async ({ page, signedInChat: chat, account }) => {
    await chat.sendAndWaitForReply("remember me", expectedReply("remember me"));
    await expect.poll(() => chat.conversationIdInUrl()).not.toBeNull();
    const id = chat.conversationIdInUrl()!;

    await chat.input.fill("half-written thought");
    await expect.poll(() => storedDraft(page, account.accountId, id)).toBe("half-written thought");
    await page.reload();
    await expect(chat.input).toHaveValue("half-written thought");

    const second = await page.context().newPage();
    await second.goto("/");
    const secondChat = new ChatPage(second);
    // A new tab loads the chat's code first (the sign-in bound), then restores the conversation.
    await secondChat.expectSignedInAs(account.email);
    await expect(secondChat.userMessages).toContainText("remember me");
    await expect.poll(() => secondChat.conversationIdInUrl()).toBe(id);
    await second.close();
  });

  test("conversations can be started, switched, renamed and deleted; newest first", async ({ page, signedInChat: chat }) => {
    await chat.sendAndWaitForReply("first topic", expectedReply("first topic"));
    await expect(chat.conversationItems).toHaveCount(1);
    const firstId = chat.conversationIdInUrl();

    await chat.newChatButton.click();
    await expect(chat.userMessages).toHaveCount(0);
    await chat.sendAndWaitForReply("second topic", expectedReply("second topic"));
    await expect(chat.conversationItems).toHaveCount(2);
    await expect(chat.conversationItems.first()).toContainText("second topic");
    await expect(chat.conversationItems.first()).toHaveAttribute("data-active", "true");

    await chat.conversation("first topic").getByTestId("conversation-link").click();
    await expect(chat.userMessages).toHaveCount(1);
    await expect(chat.userMessages).toContainText("first topic");
    await expect.poll(() => chat.conversationIdInUrl()).toBe(firstId);

    const menu = await chat.openConversationMenu("first topic");
    await menu.getByTestId("conversation-rename").click();
    await page.getByTestId("conversation-rename-input").fill("Renamed topic");
    await page.getByTestId("conversation-rename-input").press("Enter");
    await expect(chat.conversation("Renamed topic")).toHaveCount(1);
    await page.reload();
    await expect(chat.conversation("Renamed topic")).toHaveCount(1);

    // Deleting is taken back within the Undo window (conversation-delete.spec.ts), then final.
    await chat.deleteConversation("second topic");
    await expect(chat.conversationItems).toHaveCount(1);
    await expect(chat.conversationItems).toContainText("Renamed topic");
  });

  for (const width of [1280, 390]) {
    test(`a long title shows whole in the list when there is room (${width} px)`, async ({ page, signedInChat: chat, account }) => {
      await page.setViewportSize({ width, height: 800 });
      const title = "Plan the Lisbon trip with the kids in May";
      await storeConversations(page, account.accountId, [storedConversation(title, [["hello", "hi"]])]);
      await page.reload();
      await chat.expectSignedInAs(account.email);
      if (width < 1024) await page.getByTestId("conversations-button").click();
      const link = page.getByTestId("conversation-link").filter({ visible: true });
      await expect(link).toHaveText(title);
      const clipped = await link.evaluate((element) => element.scrollWidth > element.clientWidth || element.scrollHeight > element.clientHeight);
      expect(clipped).toBe(false);
    });
  }

  test("another account on the same browser never sees them", async ({ page, signedInChat: chat, mock, account }) => {
    await chat.sendAndWaitForReply("private to the first account", expectedReply("private to the first account"));
    await expect.poll(() => chat.conversationIdInUrl()).not.toBeNull();
    const firstAccountConversation = chat.conversationIdInUrl()!;
    await chat.signOut();

    const other = uniqueAccount("second account", "pro");
    const otherChat = await signInThroughControlApi(page, mock, other);
    await expect(otherChat.conversationItems).toHaveCount(0);
    await expect(otherChat.userMessages).toHaveCount(0);

    // Even the first account's conversation URL opens a new, empty chat.
    await page.goto(`/?c=${firstAccountConversation}`);
    await otherChat.expectSignedInAs(other.email);
    await expect(otherChat.conversationItems).toHaveCount(0);
    await expect(otherChat.userMessages).toHaveCount(0);
    expect(account.accountId).not.toBe(other.accountId);
  });

  test("signing out can forget this device's conversations and preferences", async ({ page, signedInChat: chat, mock, account }) => {
    // Kept on this device only: the server's copy would bring them back (e2e/history-settings.spec.ts).
    await keepChatsOnThisDevice(page);
    await chat.selectModel("gpt-5.5");
    await chat.sendAndWaitForReply("forget me", expectedReply("forget me"));
    await expect(chat.conversationItems).toHaveCount(1);
    expect(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith("lwc:")).length)).toBeGreaterThan(0);

    await chat.signOutAndForget();
    await expect(page.getByTestId("sign-in-button")).toBeVisible();
    expect(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith("lwc:")))).toEqual([]);

    const again = await signInThroughControlApi(page, mock, account);
    await expect(again.storageNote).toBeVisible();
    await expect(again.conversationItems).toHaveCount(0);
    await expect(again.userMessages).toHaveCount(0);
  });

  test("without browser storage, chats still work in the tab and a note says they are not kept", async ({ page, mock, account }) => {
    await page.addInitScript(() => {
      // As in some private modes: opening IndexedDB fails.
      Object.defineProperty(window, "indexedDB", { value: undefined, configurable: true });
    });
    const chat = await signInThroughControlApi(page, mock, account);
    await expect(chat.storageNote).toContainText(/not keeping conversations/i);
    await chat.sendAndWaitForReply("still works", expectedReply("still works"));
    await expect(chat.conversationItems).toHaveCount(1);
  });
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 800 } });

  test("the conversation list is a drawer that switches conversations", async ({ signedInChat: chat }) => {
    await chat.sendAndWaitForReply("phone topic one", expectedReply("phone topic one"));
    await chat.newChatButton.click();
    await chat.sendAndWaitForReply("phone topic two", expectedReply("phone topic two"));
    await expect(chat.conversationItems.first()).toBeHidden(); // no sidebar at this width

    await chat.page.getByTestId("conversations-button").click();
    const drawer = chat.page.getByTestId("conversations-drawer");
    await expect(drawer).toBeVisible();
    await drawer.getByText("phone topic one", { exact: true }).click();
    await expect(drawer).toBeHidden();
    await expect(chat.userMessages).toContainText("phone topic one");
  });
});

test("a reload before the answer's first word keeps the question as a failed turn that can be retried", async ({ page, signedInChat: chat, mock, account }) => {
  // The first reply holds its headers back, so the reload surely comes before any answer text (a reload
  // after some text keeps that text as an interrupted answer: e2e/answer-reload.spec.ts). Once only.
  await mock.addFault({ fault: "slow_first_byte", accountId: account.accountId, delayMs: 30_000 });
  const question = longMessage(80, "reload");
  await chat.send(question);
  await expect(chat.userMessages.last()).toContainText("reload");
  await expect.poll(() => chat.conversationIdInUrl()).not.toBeNull();

  await page.reload();
  await expect(chat.failedUserMessages).toHaveCount(1);
  await expect(chat.error).toContainText(/reloaded before the answer arrived/);
  await chat.retryTurnButton.click();
  await expect(chat.lastAssistantMessage()).toContainText(expectedReply(question));
  await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");
  await expect(chat.failedUserMessages).toHaveCount(0);
});
