import { expect, test } from "./fixtures";
import type { ChatPage } from "./pages/chat-page";
import { ThemeControl } from "./pages/theme-control";
import { TurnControls } from "./pages/turn-controls";
import { allAccessibilityViolationsIn, seriousAccessibilityViolations } from "./support/axe";
import { expectedReply, longMessage } from "./support/mock-replies";
import { storeConversations, storedConversation } from "./support/stored-conversations";

/**
 * Axe scans of what issue 23 added around the chat: search, the shortcuts list, a row's menu, the
 * Undo toast, the theme control, an interrupted answer and an answer's versions. Light and dark,
 * at 390 px (drawer) and 1280 px (sidebar). Only serious and critical violations fail.
 */

async function withConversations(chat: ChatPage, accountId: string, email: string): Promise<void> {
  await storeConversations(chat.page, accountId, [
    storedConversation("Garden plans", [["Which roses climb well?", "Rambling roses climb well up a wall."]], Date.now() - 60_000),
    storedConversation("Tax questions", [["When is the deadline?", "The deadline is in April."]], Date.now() - 120_000),
  ]);
  await chat.page.reload();
  await chat.expectSignedInAs(email);
  await expect(chat.conversationItems).toHaveCount(2);
}

for (const colorScheme of ["light", "dark"] as const) {
  for (const width of [390, 1280]) {
    test.describe(`axe scan, ${colorScheme}, ${width} px`, () => {
      test.use({ colorScheme, viewport: { width, height: 800 } });
      const phone = width < 768;

      test("search with results, the shortcuts list, a row's menu, the Undo toast and the theme control", async ({ page, signedInChat: chat, account }) => {
        test.slow();
        const turns = new TurnControls(page);
        const theme = new ThemeControl(page);
        await withConversations(chat, account.accountId, account.email);
        await expect(theme.html).toHaveAttribute("data-theme", colorScheme);

        // The theme control, set explicitly to the scheme under test.
        await expect(theme.select).toBeVisible();
        await theme.select.selectOption(colorScheme);
        await expect(theme.html).toHaveAttribute("data-theme", colorScheme);
        expect(await seriousAccessibilityViolations(page), "the theme control").toEqual([]);

        await chat.input.blur();
        await page.keyboard.press("ControlOrMeta+k");
        await expect(chat.searchDialog).toBeVisible();
        await chat.searchInput.fill("roses");
        await expect(chat.searchResults).toHaveCount(1);
        await expect(chat.searchResults.first().locator("mark")).toHaveText(["roses"]);
        await chat.searchInput.press("ArrowDown");
        await expect(chat.searchResults.first()).toHaveAttribute("aria-selected", "true");
        expect(await seriousAccessibilityViolations(page), "the search dialog with a result").toEqual([]);
        // Escape in a search field with text clears the text first (the browser's own behaviour).
        await chat.searchInput.fill("");
        await page.keyboard.press("Escape");
        await expect(chat.searchDialog).toBeHidden();

        await chat.input.blur();
        await page.keyboard.press("Shift+Slash");
        await expect(turns.shortcutsDialog).toBeVisible();
        expect(await seriousAccessibilityViolations(page), "the keyboard shortcuts dialog").toEqual([]);
        await page.keyboard.press("Escape");
        await expect(turns.shortcutsDialog).toBeHidden();

        const menu = page.getByTestId("conversation-menu");
        if (phone) {
          await page.getByTestId("conversations-button").click();
          // The drawer is a plain dialog element: no violation at all, minor ones included.
          expect(await allAccessibilityViolationsIn(page, '[data-testid="conversations-drawer"]'), "the conversation drawer").toEqual([]);
          const row = turns.conversationsDrawer.getByTestId("conversation-item").filter({ hasText: "Tax questions" });
          await row.getByTestId("conversation-menu-button").click();
          await expect(menu).toBeVisible();
        } else {
          await chat.openConversationMenu("Tax questions");
        }
        expect(await seriousAccessibilityViolations(page), "a conversation row's menu, open").toEqual([]);

        await menu.getByTestId("conversation-delete").click();
        const toast = chat.undoToasts.filter({ hasText: "Tax questions" });
        await expect(toast).toBeVisible();
        expect(await seriousAccessibilityViolations(page), "the Undo toast").toEqual([]);
        await toast.getByRole("button", { name: "Undo" }).click();
        // The phone's list is the drawer's (the sidebar's copy is hidden at that width).
        const list = phone ? turns.conversationsDrawer : turns.sidebar;
        await expect(list.getByTestId("conversation-item")).toHaveCount(2);
      });

      test("an interrupted answer with Continue and Try again, then the answer's version switcher", async ({ page, signedInChat: chat, mock, account }) => {
        test.slow();
        const turns = new TurnControls(page);
        await mock.addFault({ fault: "slow_stream", accountId: account.accountId, delayMs: 200 });
        const question = longMessage(24, "scan");
        await turns.sendUntilPartSaved(chat, account.accountId, question, 'You said: "scan1 scan2');
        await page.reload();
        await chat.expectSignedInAs(account.email);

        const answer = chat.assistantMessages.last();
        await expect(answer).toHaveAttribute("data-interrupted", "true");
        await expect(turns.continueButton).toBeVisible();
        await expect(turns.interruptedRetryButton).toBeVisible();
        expect(await seriousAccessibilityViolations(page), "an interrupted answer").toEqual([]);

        await turns.interruptedRetryButton.click();
        await expect(answer).toContainText(expectedReply(question));
        await expect(answer).toHaveAttribute("data-status", "done");
        const versions = turns.versions(answer);
        await expect(versions.label).toHaveText("2 / 2");
        // One arrow disabled, one enabled: both states are in the scan.
        await expect(versions.next).toBeDisabled();
        await expect(versions.previous).toBeEnabled();
        expect(await seriousAccessibilityViolations(page), "the answer's version switcher").toEqual([]);
      });
    });
  }
}
