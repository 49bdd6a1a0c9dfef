import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import type { ChatPage } from "./pages/chat-page";
import { seriousAccessibilityViolations } from "./support/axe";
import { expectedReply } from "./support/mock-replies";
import { storeConversations, storedConversation, type StoredConversation } from "./support/stored-conversations";

/**
 * Organising the conversation list: pin, archive, date groups, titles that stay on one line, and
 * the short title generated after a conversation's first answer (with the setting that turns it off).
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function signedInWith(chat: ChatPage, accountId: string, email: string, conversations: StoredConversation[]): Promise<void> {
  await storeConversations(chat.page, accountId, conversations);
  await chat.page.reload();
  await chat.expectSignedInAs(email);
}

/** The list's group headings, in order, each with the titles under it. */
async function groupsOf(page: Page): Promise<{ heading: string; titles: string[] }[]> {
  const groups = page.getByTestId("sidebar").getByTestId("conversation-group");
  return groups.evaluateAll((elements) =>
    elements.map((group) => ({
      heading: group.querySelector("[data-group-heading]")?.textContent?.trim() ?? "",
      titles: [...group.querySelectorAll('[data-testid="conversation-link"]')].map((link) => link.textContent?.trim() ?? ""),
    })),
  );
}

/** The visible list's titles, top to bottom, without the archived ones. */
function visibleTitles(page: Page): Promise<string[]> {
  return page.getByTestId("sidebar").getByTestId("conversation-group").getByTestId("conversation-link").allTextContents();
}

test.describe("organising the list", () => {
  test.use({ locale: "en-US" });

  test("pin and unpin: a pinned conversation leads the list under Pinned, after a reload too", async ({ page, signedInChat: chat, account }) => {
    const now = Date.now();
    await signedInWith(chat, account.accountId, account.email, [
      storedConversation("Garden plans", [["Which roses climb?", "Ramblers do."]], now - 60_000),
      storedConversation("Tax questions", [["When is the deadline?", "In April."]], now - 120_000),
      storedConversation("Old recipe", [["How long to bake?", "40 minutes."]], now - 3 * DAY),
    ]);
    const pin = await chat.openConversationMenu("Old recipe");
    await expect(pin.getByTestId("conversation-pin")).toHaveText("Pin");
    await pin.getByTestId("conversation-pin").click();
    await expect.poll(() => groupsOf(page)).toEqual([
      { heading: "Pinned", titles: ["Old recipe"] },
      { heading: "Today", titles: ["Garden plans", "Tax questions"] },
    ]);

    await page.reload();
    await chat.expectSignedInAs(account.email);
    await expect.poll(() => groupsOf(page)).toEqual([
      { heading: "Pinned", titles: ["Old recipe"] },
      { heading: "Today", titles: ["Garden plans", "Tax questions"] },
    ]);

    const unpin = await chat.openConversationMenu("Old recipe");
    await expect(unpin.getByTestId("conversation-pin")).toHaveText("Unpin");
    await unpin.getByTestId("conversation-pin").click();
    await expect.poll(() => groupsOf(page)).toEqual([
      { heading: "Today", titles: ["Garden plans", "Tax questions"] },
      { heading: "Previous 7 days", titles: ["Old recipe"] },
    ]);
  });

  test("archive and unarchive: an archived conversation leaves the list for its own section and is still found by search", async ({ page, signedInChat: chat, account }) => {
    const now = Date.now();
    await signedInWith(chat, account.accountId, account.email, [
      storedConversation("Garden plans", [["Which roses climb?", "Ramblers do."]], now - 60_000),
      storedConversation("Tax questions", [["When is the deadline?", "The deadline is in April."]], now - 120_000),
    ]);
    const archivedToggle = page.getByTestId("sidebar").getByTestId("archived-toggle");
    await expect(archivedToggle).toHaveCount(0);

    await (await chat.openConversationMenu("Tax questions")).getByTestId("conversation-archive").click();
    await expect.poll(() => visibleTitles(page)).toEqual(["Garden plans"]);
    await expect(archivedToggle).toHaveText("Archived (1)");
    await expect(archivedToggle).toHaveAttribute("aria-expanded", "false");
    await archivedToggle.click();
    await expect(archivedToggle).toHaveAttribute("aria-expanded", "true");
    const archived = page.getByTestId("sidebar").getByTestId("archived-conversations");
    await expect(archived.getByTestId("conversation-link")).toHaveText(["Tax questions"]);
    expect(await seriousAccessibilityViolations(page), "the list with its date group and the Archived section open").toEqual([]);

    await page.reload();
    await chat.expectSignedInAs(account.email);
    await expect.poll(() => visibleTitles(page)).toEqual(["Garden plans"]);
    await chat.searchButton.click();
    await chat.searchInput.fill("deadline");
    await expect(chat.searchResults).toHaveCount(1);
    await chat.searchResults.first().click();
    await expect(chat.userMessages).toContainText("When is the deadline?");

    await archivedToggle.click();
    const menu = await chat.openConversationMenu("Tax questions");
    await expect(menu.getByTestId("conversation-archive")).toHaveText("Unarchive");
    await menu.getByTestId("conversation-archive").click();
    await expect.poll(() => visibleTitles(page)).toEqual(["Garden plans", "Tax questions"]);
    await expect(archivedToggle).toHaveCount(0);
  });

  test("date groups: Today, Yesterday, Previous 7 days, Previous 30 days, then months", async ({ page, signedInChat: chat, account }) => {
    // The page's clock is held at noon today, so every group's boundary is hours away.
    const noon = new Date();
    noon.setHours(12, 0, 0, 0);
    const at = (ago: number) => noon.getTime() - ago;
    const month = (time: number) => {
      const date = new Date(time);
      const name = date.toLocaleDateString("en-US", { month: "long" });
      return date.getFullYear() === noon.getFullYear() ? name : `${name} ${date.getFullYear()}`;
    };
    await page.clock.setFixedTime(noon);
    await signedInWith(chat, account.accountId, account.email, [
      storedConversation("This morning", [["a", "b"]], at(2 * HOUR)),
      storedConversation("Last night", [["a", "b"]], at(DAY)),
      storedConversation("Three days back", [["a", "b"]], at(3 * DAY)),
      storedConversation("Three weeks back", [["a", "b"]], at(21 * DAY)),
      storedConversation("Two months back", [["a", "b"]], at(61 * DAY)),
      storedConversation("Last year", [["a", "b"]], at(400 * DAY)),
    ]);
    await expect.poll(() => groupsOf(page)).toEqual([
      { heading: "Today", titles: ["This morning"] },
      { heading: "Yesterday", titles: ["Last night"] },
      { heading: "Previous 7 days", titles: ["Three days back"] },
      { heading: "Previous 30 days", titles: ["Three weeks back"] },
      { heading: month(at(61 * DAY)), titles: ["Two months back"] },
      { heading: month(at(400 * DAY)), titles: ["Last year"] },
    ]);
  });
});

for (const width of [1280, 390]) {
  test.describe(`a title never overflows its row (${width} px)`, () => {
    test.use({ viewport: { width, height: 800 } });

    test("a 300-character title is cut with an ellipsis on one line; the row keeps its height", async ({ page, signedInChat: chat, account }) => {
      const words = Array.from({ length: 60 }, (_, index) => `word${index}`).join(" ").slice(0, 300);
      const unbroken = `sha256-${"9f86d081884c7d65".repeat(19)}`.slice(0, 300);
      const now = Date.now();
      await signedInWith(chat, account.accountId, account.email, [
        storedConversation("Short title", [["a", "b"]], now - 60_000),
        storedConversation(words, [["a", "b"]], now - 120_000),
        storedConversation(unbroken, [["a", "b"]], now - 180_000),
        storedConversation("Below the long ones", [["a", "b"]], now - 240_000),
      ]);
      if (width < 1024) await page.getByTestId("conversations-button").click();
      const rows = page.getByTestId("conversation-item").filter({ visible: true });
      await expect(rows).toHaveCount(4);
      const boxes = await rows.evaluateAll((elements) => elements.map((element) => element.getBoundingClientRect().toJSON() as DOMRect));
      const [short, long, hash, below] = boxes;
      expect(long!.height).toBe(short!.height);
      expect(hash!.height).toBe(short!.height);
      // Nothing of a row is drawn over the next one.
      expect(long!.bottom).toBeLessThanOrEqual(hash!.top);
      expect(hash!.bottom).toBeLessThanOrEqual(below!.top);
      for (const title of [words, unbroken]) {
        const link: Locator = rows.getByTestId("conversation-link").filter({ hasText: title.slice(0, 40) });
        await expect(link).toHaveAttribute("title", title);
        const shown = await link.evaluate((element) => {
          const text = element.querySelector("[data-title-text]") ?? element;
          const style = getComputedStyle(text);
          return { ellipsis: style.textOverflow, wrap: style.whiteSpace, cut: text.scrollWidth > text.clientWidth, lines: Math.round(text.getBoundingClientRect().height / parseFloat(style.lineHeight)) };
        });
        expect(shown).toEqual({ ellipsis: "ellipsis", wrap: "nowrap", cut: true, lines: 1 });
      }
    });
  });
}

test.describe("a title generated after the first answer", () => {
  test.use({ generatedTitles: true });

  test("one call to the smallest model names the conversation; a title the person gave first is never replaced", async ({ page, signedInChat: chat, mock, account }) => {
    const question = "plan a relaxed three day trip to Kyoto in April with temples and gardens";
    await chat.sendAndWaitForReply(question, expectedReply(question));
    const link = page.getByTestId("sidebar").getByTestId("conversation-link");
    await expect(link).toHaveText(["Plan a relaxed three day trip"]);
    await expect(page.getByTestId("header-title")).toHaveText("Plan a relaxed three day trip");

    const requests = await mock.responsesRequestsOf(account.accountId);
    expect(requests).toHaveLength(2);
    const titleCall = requests[1]!.body as { model: string; instructions: string; input: { role: string }[]; tools?: unknown };
    expect(titleCall.model).toBe("gpt-5.4-mini");
    expect(titleCall.instructions).toMatch(/short title/);
    expect(titleCall.input.map((item) => item.role)).toEqual(["user", "assistant"]);
    expect(titleCall.tools).toBeUndefined();

    await page.reload();
    await chat.expectSignedInAs(account.email);
    await expect(link).toHaveText(["Plan a relaxed three day trip"]);

    // Renamed while its first answer is still on its way (the mock holds it back for a while): no
    // title is asked for, and the name stays.
    await chat.newChatButton.click();
    await mock.addFault({ fault: "slow_first_byte", accountId: account.accountId, times: 1, delayMs: 10_000 });
    const slow = "how long should bread dough rest before baking";
    await chat.send(slow);
    await (await chat.openConversationMenu(slow)).getByTestId("conversation-rename").click();
    await page.getByTestId("conversation-rename-input").fill("Bread timing");
    await page.getByTestId("conversation-rename-input").press("Enter");
    await expect(chat.conversation("Bread timing")).toHaveCount(1);
    await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done", { timeout: 30_000 });
    await expect(chat.lastAssistantMessage()).toContainText(expectedReply(slow));
    await chat.sendAndWaitForReply("thanks", expectedReply("thanks", slow));
    await expect(chat.conversation("Bread timing")).toHaveCount(1);
    const later = (await mock.responsesRequestsOf(account.accountId)).slice(2);
    expect(later.map((request) => (request.body as { instructions?: string }).instructions ?? "")).not.toContainEqual(expect.stringMatching(/short title/));
    expect(later).toHaveLength(2);
  });

  test("the setting turns it off, remembered in this browser", async ({ page, signedInChat: chat, mock, account }) => {
    const toggle = page.getByTestId("sidebar").getByRole("switch", { name: "Name chats automatically" });
    await expect(toggle).toHaveAttribute("aria-checked", "true");
    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-checked", "false");
    await page.reload();
    await chat.expectSignedInAs(account.email);
    await expect(toggle).toHaveAttribute("aria-checked", "false");

    const question = "plan a relaxed three day trip to Kyoto in April with temples and gardens";
    await chat.sendAndWaitForReply(question, expectedReply(question));
    await chat.sendAndWaitForReply("and Nara?", expectedReply("and Nara?", question));
    await expect(page.getByTestId("sidebar").getByTestId("conversation-link")).toHaveText([question]);
    const requests = await mock.responsesRequestsOf(account.accountId);
    expect(requests.map((request) => (request.body as { instructions?: string }).instructions ?? "")).not.toContainEqual(expect.stringMatching(/short title/));
    expect(requests).toHaveLength(2);
  });
});
