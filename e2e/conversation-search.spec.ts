import { expect, test } from "./fixtures";
import type { ChatPage } from "./pages/chat-page";
import { expectedReply } from "./support/mock-replies";
import { filler, storeConversations, storedConversation, type StoredConversation } from "./support/stored-conversations";

/** Twelve turns about Lisbon; the word "Alfama" is in the third question only. */
function lisbonTrip(): StoredConversation {
  const turns: [string, string][] = Array.from({ length: 12 }, (_, index) => [`Lisbon question ${index + 1}`, filler(`the trip, part ${index + 1}`)]);
  turns[2] = ["How steep is the walk up through Alfama to the castle?", filler("the castle walk")];
  return storedConversation("Weekend in Lisbon", turns, Date.now() - 120_000);
}

/** "hydration" is in an answer only. */
function sourdough(): StoredConversation {
  return storedConversation("Sourdough starter", [["How wet should the dough be?", `Aim for a hydration of about 70 percent. ${filler("bread")}`]], Date.now() - 60_000);
}

async function signedInWith(chat: ChatPage, accountId: string, email: string, conversations: StoredConversation[]): Promise<void> {
  await storeConversations(chat.page, accountId, conversations);
  await chat.page.reload();
  await chat.expectSignedInAs(email);
}

test.describe("searching the conversations kept in this browser", () => {
  test("the field above the list finds text in any conversation and opens it at the match, highlighted", async ({ page, signedInChat: chat, account }) => {
    const trip = lisbonTrip();
    const bread = sourdough();
    await signedInWith(chat, account.accountId, account.email, [trip, bread]);
    await expect(chat.conversationItems).toHaveCount(2);
    await chat.conversation("Sourdough starter").getByTestId("conversation-link").click();
    await expect.poll(() => chat.conversationIdInUrl()).toBe(bread.id);

    await chat.searchButton.click();
    await expect(chat.searchDialog).toBeVisible();
    await expect(chat.searchInput).toBeFocused();
    await chat.searchInput.fill("alfama");
    await expect(chat.searchResults).toHaveCount(1);
    const result = chat.searchResults.first();
    await expect(result).toContainText("Weekend in Lisbon");
    await expect(result).toContainText("How steep is the walk up through");
    await expect(result.locator("mark")).toHaveText(["Alfama"]);

    await result.click();
    await expect(chat.searchDialog).toBeHidden();
    await expect.poll(() => chat.conversationIdInUrl()).toBe(trip.id);
    const match = page.locator(`[data-message-id="${trip.messages[4]!.id}"]`);
    await expect(match).toHaveAttribute("data-highlighted", "true");
    await expect(match).toBeInViewport();
    // The conversation's last answer is far below: opening at the match did not scroll to the end.
    await expect(page.locator(`[data-message-id="${trip.messages.at(-1)!.id}"]`)).not.toBeInViewport();
  });

  test("titles match too, several words narrow the results, and nothing found says so", async ({ signedInChat: chat, account }) => {
    await signedInWith(chat, account.accountId, account.email, [lisbonTrip(), sourdough()]);

    await chat.searchButton.click();
    await chat.searchInput.fill("weekend");
    await expect(chat.searchResults).toHaveCount(1);
    await expect(chat.searchResults.first()).toContainText("Weekend in Lisbon");

    await chat.searchInput.fill("hydration percent");
    await expect(chat.searchResults).toHaveCount(1);
    await expect(chat.searchResults.first()).toContainText("Sourdough starter");
    await expect(chat.searchResults.first().locator("mark").first()).toHaveText("hydration");

    await chat.searchInput.fill("hydration castle");
    await expect(chat.searchResults).toHaveCount(0);
    await expect(chat.searchDialog).toContainText("No conversations match");

    // The arrow keys and Enter pick a result without the mouse.
    await chat.searchInput.fill("starter");
    await expect(chat.searchResults).toHaveCount(1);
    await chat.searchInput.press("ArrowDown");
    await expect(chat.searchResults.first()).toHaveAttribute("aria-selected", "true");
    await chat.searchInput.press("Enter");
    await expect(chat.searchDialog).toBeHidden();
    await expect(chat.userMessages).toContainText("How wet should the dough be?");
  });

  test("before typing it lists the recent conversations; the first letters of a word find it", async ({ signedInChat: chat, account }) => {
    const kyoto = storedConversation("Trip to Kyoto", [["Which temples first?", "Start in Higashiyama."]], Date.now() - 30_000);
    await signedInWith(chat, account.accountId, account.email, [lisbonTrip(), sourdough(), kyoto]);

    await chat.searchButton.click();
    await expect(chat.searchResults).toHaveCount(3);
    await expect(chat.searchResults.nth(0)).toContainText("Trip to Kyoto");
    await expect(chat.searchResults.nth(1)).toContainText("Sourdough starter");
    await expect(chat.searchResults.nth(2)).toContainText("Weekend in Lisbon");

    await chat.searchInput.fill("kyo");
    await expect(chat.searchResults).toHaveCount(1);
    await expect(chat.searchResults.first()).toContainText("Trip to Kyoto");
    await expect(chat.searchResults.first().locator("mark")).toHaveText(["Kyoto"]);

    // Emptied again, the recent ones come back; the arrow keys and Enter open one.
    await chat.searchInput.fill("");
    await expect(chat.searchResults).toHaveCount(3);
    await chat.searchInput.press("ArrowDown");
    await chat.searchInput.press("ArrowDown");
    await chat.searchInput.press("Enter");
    await expect(chat.searchDialog).toBeHidden();
    await expect(chat.userMessages).toContainText("How wet should the dough be?");
  });

  test("a conversation from this session is found as soon as it is kept", async ({ signedInChat: chat }) => {
    await chat.sendAndWaitForReply("the pelican named Gerald", expectedReply("the pelican named Gerald"));
    await chat.newChatButton.click();
    await chat.sendAndWaitForReply("something else entirely", expectedReply("something else entirely"));

    await chat.searchButton.click();
    await chat.searchInput.fill("gerald");
    await expect(chat.searchResults).toHaveCount(1);
    await chat.searchResults.first().click();
    await expect(chat.userMessages).toHaveCount(1);
    await expect(chat.userMessages).toContainText("the pelican named Gerald");
  });
});

test.describe("search on a phone", () => {
  test.use({ viewport: { width: 390, height: 800 } });

  test("Ctrl/⌘+K opens it, Escape closes it, and a result opens the conversation at the match", async ({ page, signedInChat: chat, account }) => {
    const trip = lisbonTrip();
    await signedInWith(chat, account.accountId, account.email, [trip, sourdough()]);

    await page.keyboard.press("ControlOrMeta+k");
    await expect(chat.searchDialog).toBeVisible();
    await expect(chat.searchInput).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(chat.searchDialog).toBeHidden();

    // Also from inside the message box.
    await chat.input.focus();
    await page.keyboard.press("ControlOrMeta+k");
    await expect(chat.searchInput).toBeFocused();
    await chat.searchInput.fill("alfama");
    await expect(chat.searchResults).toHaveCount(1);
    await expect(chat.searchResults.first()).toBeInViewport({ ratio: 1 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await chat.searchResults.first().click();

    await expect(chat.searchDialog).toBeHidden();
    const match = page.locator(`[data-message-id="${trip.messages[4]!.id}"]`);
    await expect(match).toHaveAttribute("data-highlighted", "true");
    await expect(match).toBeInViewport();
  });

  test("the search field is at the top of the conversation drawer", async ({ page, signedInChat: chat, account }) => {
    await signedInWith(chat, account.accountId, account.email, [sourdough()]);
    await page.getByTestId("conversations-button").click();
    const drawer = page.getByTestId("conversations-drawer");
    await drawer.getByTestId("conversation-search-button").click();
    await expect(drawer).toBeHidden();
    await chat.searchInput.fill("hydration");
    await expect(chat.searchResults).toHaveCount(1);
  });
});
