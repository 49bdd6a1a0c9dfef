import { expect, test } from "./fixtures";
import type { ChatPage } from "./pages/chat-page";
import { storeConversations, storedConversation, storedConversationIds, type StoredConversation } from "./support/stored-conversations";

/** The documented Undo window is 10 s; the issue asks for at least 8. */
const MIN_UNDO_WINDOW_MS = 8_000;

function twoConversations(): [StoredConversation, StoredConversation] {
  return [
    storedConversation("Garden plans", [["Which roses climb well?", "Rambling roses climb well."]], Date.now() - 60_000),
    storedConversation("Tax questions", [["When is the deadline?", "The deadline is in April."]], Date.now() - 120_000),
  ];
}

async function withConversations(chat: ChatPage, accountId: string, email: string, conversations: StoredConversation[]): Promise<void> {
  await storeConversations(chat.page, accountId, conversations);
  await chat.page.reload();
  await chat.expectSignedInAs(email);
  await expect(chat.conversationItems).toHaveCount(conversations.length);
}

test.describe("deleting a conversation can be taken back", () => {
  test("delete sits in the row menu, Undo brings the conversation back, and a reload in the window keeps it", async ({ page, signedInChat: chat, account }) => {
    const [garden, tax] = twoConversations();
    await withConversations(chat, account.accountId, account.email, [garden, tax]);
    // No delete control on the rows themselves: it is one step away, in the menu.
    await expect(page.getByTestId("conversation-delete")).toHaveCount(0);

    await chat.conversation("Garden plans").getByTestId("conversation-link").click();
    await expect.poll(() => chat.conversationIdInUrl()).toBe(garden.id);
    await chat.deleteConversation("Garden plans");
    await expect(chat.conversation("Garden plans")).toHaveCount(0);
    // The open conversation was the deleted one: a new chat takes its place.
    await expect(chat.userMessages).toHaveCount(0);
    await expect.poll(() => chat.conversationIdInUrl()).toBeNull();
    const toast = chat.undoToasts.filter({ hasText: "Garden plans" });
    await expect(toast).toBeVisible();
    await expect(toast).toHaveAttribute("role", "status");
    expect(await storedConversationIds(page, account.accountId)).toContain(garden.id);

    await toast.getByRole("button", { name: "Undo" }).click();
    await expect(toast).toBeHidden();
    await expect(chat.conversationItems).toHaveCount(2);
    await expect(chat.conversation("Garden plans")).toHaveCount(1);

    await chat.deleteConversation("Tax questions");
    await expect(chat.conversation("Tax questions")).toHaveCount(0);
    await page.reload();
    await chat.expectSignedInAs(account.email);
    await expect(chat.conversationItems).toHaveCount(2);
    await expect(chat.undoToasts).toHaveCount(0);
    expect(await storedConversationIds(page, account.accountId)).toEqual([garden.id, tax.id].sort());
  });

  test("the conversation is removed from the browser only when the Undo window has passed", async ({ page, signedInChat: chat, account }) => {
    // Sign-in, a reload and the whole 10 s Undo window, then another reload.
    test.slow();
    const [garden, tax] = twoConversations();
    await withConversations(chat, account.accountId, account.email, [garden, tax]);

    await chat.deleteConversation("Tax questions");
    const deletedAt = Date.now();
    const toast = chat.undoToasts.filter({ hasText: "Tax questions" });
    await expect(toast).toBeVisible();
    expect(await storedConversationIds(page, account.accountId)).toContain(tax.id);

    await expect(toast).toBeHidden({ timeout: 20_000 });
    expect(Date.now() - deletedAt).toBeGreaterThanOrEqual(MIN_UNDO_WINDOW_MS);
    await expect.poll(() => storedConversationIds(page, account.accountId)).toEqual([garden.id]);
    await page.reload();
    await chat.expectSignedInAs(account.email);
    await expect(chat.conversationItems).toHaveCount(1);
    await expect(chat.conversation("Garden plans")).toHaveCount(1);
  });

  test("the row menu and Undo work from the keyboard, with menu semantics", async ({ page, signedInChat: chat, account }) => {
    await withConversations(chat, account.accountId, account.email, twoConversations());
    const row = chat.conversation("Garden plans");
    await row.getByTestId("conversation-link").focus();
    // The list is one Tab stop; a row's menu button is reached with ArrowRight (e2e/keyboard.spec.ts).
    await page.keyboard.press("ArrowRight");
    const menuButton = row.getByTestId("conversation-menu-button");
    await expect(menuButton).toBeFocused();
    await expect(menuButton).toBeVisible();
    await expect(menuButton).toHaveAttribute("aria-haspopup", "menu");
    await expect(menuButton).toHaveAttribute("aria-expanded", "false");
    await expect(menuButton).toHaveAccessibleName("Options for “Garden plans”");

    await page.keyboard.press("Enter");
    const menu = page.getByRole("menu");
    await expect(menu).toBeVisible();
    await expect(menuButton).toHaveAttribute("aria-expanded", "true");
    await expect(menu.getByRole("menuitem").first()).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(menu).toBeHidden();
    await expect(menuButton).toBeFocused();

    await page.keyboard.press("Enter");
    await page.keyboard.press("End");
    await expect(menu.getByRole("menuitem", { name: "Delete" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(chat.conversation("Garden plans")).toHaveCount(0);
    const undo = chat.undoToasts.getByRole("button", { name: "Undo" });
    await expect(undo).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(chat.conversation("Garden plans")).toHaveCount(1);
  });
});

test.describe("deleting on a phone", () => {
  test.use({ viewport: { width: 390, height: 800 } });

  test("the drawer's row menu deletes, and Undo is reachable above the drawer", async ({ page, signedInChat: chat, account }) => {
    await withConversations(chat, account.accountId, account.email, twoConversations());
    await page.getByTestId("conversations-button").click();
    const drawer = page.getByTestId("conversations-drawer");
    const row = drawer.getByTestId("conversation-item").filter({ hasText: "Tax questions" });
    await row.getByTestId("conversation-menu-button").click();
    await page.getByTestId("conversation-menu").getByTestId("conversation-delete").click();
    await expect(drawer.getByTestId("conversation-item")).toHaveCount(1);

    const toast = chat.undoToasts.filter({ hasText: "Tax questions" });
    await expect(toast).toBeInViewport({ ratio: 1 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await toast.getByRole("button", { name: "Undo" }).click();
    await expect(drawer.getByTestId("conversation-item")).toHaveCount(2);
  });
});
