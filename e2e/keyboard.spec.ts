import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { TurnControls } from "./pages/turn-controls";
import { expectedReply } from "./support/mock-replies";
import { userTextsOf } from "./support/recorded-input";
import { storeConversations, storedConversation } from "./support/stored-conversations";

function focusedTestId(page: Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.getAttribute("data-testid") ?? null);
}

test.describe("the keyboard", () => {
  // Each test signs in and waits for one or two answers: the slow budget on a busy machine.
  test.slow();

  test("the message editor: Escape cancels, Shift+Enter adds a line, Enter sends", async ({ page, signedInChat: chat, mock, account }) => {
    await chat.sendAndWaitForReply("first try", expectedReply("first try"));
    const message = chat.userMessages.first();
    const editor = page.getByTestId("edit-message-input");

    await message.hover();
    await message.getByTestId("edit-message-button").click();
    await expect(editor).toBeFocused();
    await editor.fill("never sent");
    await editor.press("Escape");
    await expect(editor).toHaveCount(0);
    await expect(chat.userMessages.first()).toHaveText("first try");

    await chat.userMessages.first().hover();
    await chat.userMessages.first().getByTestId("edit-message-button").click();
    await editor.fill("line one");
    await editor.press("Shift+Enter");
    await editor.pressSequentially("line two");
    await expect(editor).toHaveValue("line one\nline two");
    await editor.press("Enter");

    await expect(editor).toHaveCount(0);
    await expect(chat.lastAssistantMessage()).toContainText('You said: "line one');
    await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");
    const requests = await mock.responsesRequestsOf(account.accountId);
    expect(requests).toHaveLength(2);
    expect(userTextsOf(requests.at(-1))).toEqual(["line one\nline two"]);
  });

  test("? lists the shortcuts (not while typing), Escape closes the list; new chat and the sidebar from the keyboard", async ({ page, signedInChat: chat }) => {
    const turns = new TurnControls(page);
    await chat.sendAndWaitForReply("keep this one", expectedReply("keep this one"));
    await expect.poll(() => chat.conversationIdInUrl()).not.toBeNull();

    // Typed in the message box, ? is just a character.
    await chat.input.focus();
    await page.keyboard.press("Shift+Slash");
    await expect(chat.input).toHaveValue("?");
    await expect(turns.shortcutsDialog).toBeHidden();
    await chat.input.fill("");

    await chat.input.blur();
    await page.keyboard.press("Shift+Slash");
    await expect(turns.shortcutsDialog).toBeVisible();
    for (const name of ["New chat", "Search conversations", "Show or hide the conversation list", "Keyboard shortcuts"]) {
      await expect(turns.shortcutsDialog).toContainText(name);
    }
    await page.keyboard.press("Escape");
    await expect(turns.shortcutsDialog).toBeHidden();

    // The sidebar hides and comes back.
    await expect(turns.sidebar).toBeVisible();
    await page.keyboard.press("ControlOrMeta+Shift+S");
    await expect(turns.sidebar).toBeHidden();
    await page.keyboard.press("ControlOrMeta+Shift+S");
    await expect(turns.sidebar).toBeVisible();

    // A new chat, ready to type in, even from inside the message box.
    await chat.input.focus();
    await page.keyboard.press("ControlOrMeta+Shift+O");
    await expect.poll(() => chat.conversationIdInUrl()).toBeNull();
    await expect(chat.userMessages).toHaveCount(0);
    await expect(chat.input).toBeFocused();
  });

  test("the conversation list is one Tab stop: the arrow keys move between rows, ArrowRight reaches a row's menu", async ({ page, signedInChat: chat, account }) => {
    const now = Date.now();
    const titles = Array.from({ length: 30 }, (_, index) => `Topic ${String(index + 1).padStart(2, "0")}`);
    await storeConversations(page, account.accountId, titles.map((title, index) => storedConversation(title, [["a", "b"]], now - index * 60_000)));
    await page.reload();
    await chat.expectSignedInAs(account.email);
    await expect(chat.conversationItems).toHaveCount(30);

    // From the sidebar's New chat to the message box: the list takes one Tab (today's figure: 60, a row and its menu each).
    await page.getByTestId("sidebar-new-chat").focus();
    const stops: string[] = [];
    for (let press = 0; press < 100 && (await focusedTestId(page)) !== "chat-input"; press += 1) {
      await page.keyboard.press("Tab");
      stops.push((await focusedTestId(page)) ?? "");
    }
    expect(stops.at(-1)).toBe("chat-input");
    expect(stops.filter((stop) => stop === "conversation-link" || stop === "conversation-menu-button")).toEqual(["conversation-link"]);

    // Back into the list: the first row, then the arrows, Home and End.
    await page.getByTestId("sidebar-new-chat").focus();
    await page.keyboard.press("Tab");
    const focusedTitle = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? "");
    expect(await focusedTitle()).toBe("Topic 01");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    expect(await focusedTitle()).toBe("Topic 03");
    await page.keyboard.press("End");
    expect(await focusedTitle()).toBe("Topic 30");
    await page.keyboard.press("Home");
    await page.keyboard.press("ArrowDown");
    expect(await focusedTitle()).toBe("Topic 02");

    // ArrowRight reaches the row's menu button, Enter opens its menu, Escape returns, ArrowLeft goes back to the row.
    await page.keyboard.press("ArrowRight");
    expect(await focusedTestId(page)).toBe("conversation-menu-button");
    await expect(page.locator(":focus")).toHaveAccessibleName("Options for “Topic 02”");
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("conversation-menu")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("conversation-menu")).toBeHidden();
    expect(await focusedTestId(page)).toBe("conversation-menu-button");
    await page.keyboard.press("ArrowLeft");
    expect(await focusedTitle()).toBe("Topic 02");
    // Shift+F10 (the context-menu key) opens the row's menu at its first item.
    await page.keyboard.press("Shift+F10");
    await expect(page.getByTestId("conversation-menu")).toBeVisible();
    await expect(page.getByTestId("conversation-menu").getByRole("menuitem").first()).toBeFocused();
    await page.keyboard.press("Escape");

    // The list remembers where it was: Tab out and back in lands on the same row; Enter opens it.
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Shift+Tab");
    expect(await focusedTitle()).toBe("Topic 02");
    await page.keyboard.press("Enter");
    await expect(chat.userMessages).toHaveText(["a"]);
    await expect(chat.conversation("Topic 02")).toHaveAttribute("data-active", "true");
  });

  test("the message box is focused when a conversation opens", async ({ page, signedInChat: chat, account }) => {
    await expect(chat.input).toBeFocused();
    await chat.sendAndWaitForReply("the first topic", expectedReply("the first topic"));
    await chat.newChatButton.click();
    await expect(chat.input).toBeFocused();
    await chat.sendAndWaitForReply("the second topic", expectedReply("the second topic"));

    await chat.conversation("the first topic").getByTestId("conversation-link").click();
    await expect(chat.userMessages).toHaveText(["the first topic"]);
    await expect(chat.input).toBeFocused();

    await page.reload();
    await chat.expectSignedInAs(account.email);
    await expect(chat.userMessages).toHaveText(["the first topic"]);
    await expect(chat.input).toBeFocused();
  });

  test.describe("on a phone", () => {
    test.use({ viewport: { width: 390, height: 800 } });

    test("the sidebar shortcut opens and closes the conversations drawer, and an opened conversation is ready to type in", async ({ page, signedInChat: chat }) => {
      const turns = new TurnControls(page);
      await chat.sendAndWaitForReply("a phone topic", expectedReply("a phone topic"));
      await chat.newChatButton.click();

      await page.keyboard.press("ControlOrMeta+Shift+S");
      await expect(turns.conversationsDrawer).toBeVisible();
      await page.keyboard.press("ControlOrMeta+Shift+S");
      await expect(turns.conversationsDrawer).toBeHidden();

      await page.getByTestId("conversations-button").click();
      await turns.conversationsDrawer.getByTestId("conversation-link").filter({ hasText: "a phone topic" }).click();
      await expect(turns.conversationsDrawer).toBeHidden();
      await expect(chat.userMessages).toHaveText(["a phone topic"]);
      await expect(chat.input).toBeFocused();

      await chat.input.blur();
      await page.keyboard.press("Shift+Slash");
      await expect(turns.shortcutsDialog).toBeVisible();
      await expect(turns.shortcutsDialog).toBeInViewport({ ratio: 1 });
      await page.keyboard.press("Escape");
      await expect(turns.shortcutsDialog).toBeHidden();
    });
  });
});
