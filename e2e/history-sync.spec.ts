import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { ACROSS_DEVICES, HistoryPage, secondTab, signedInDevice } from "./pages/history-page";
import { expectedReply } from "./support/mock-replies";

/**
 * Chats that follow the person (docs/web-app.md#chats-on-every-device): two devices (browser
 * contexts) of one account, with two tabs each. Run on the suite's server (the embedded database)
 * and, by playwright.history-pair.config.ts, on two `next start` instances sharing a Postgres
 * behind a round-robin proxy.
 */

/** The questions a tab can reach: those on the branch shown, and those of the other version of question `at`. */
async function questionsAcrossVersions(tab: HistoryPage, at: number): Promise<string[]> {
  const shown = await tab.questionTexts();
  const question = tab.chat.userMessages.nth(at);
  const versions = tab.questionVersions(question);
  if ((await versions.label.count()) === 0) return shown;
  const label = (await versions.label.textContent()) ?? "";
  await (label.startsWith("1") ? versions.next : versions.previous).click();
  await expect(versions.label).not.toHaveText(label);
  await expect(tab.chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");
  return [...shown, ...(await tab.questionTexts())];
}

test.describe("chats on every device and tab", () => {
  test("a chat made on one device appears on the other with its answer, and continued there comes back to both tabs", async ({ browser, mock, account }) => {
    test.slow();
    const laptop = await signedInDevice(browser, mock, account);
    const phone = await signedInDevice(browser, mock, account);
    await expect(laptop.tab.notice).toHaveAttribute("data-place", "server");

    await laptop.tab.chat.sendAndWaitForReply("Plan a trip to Kyoto", expectedReply("Plan a trip to Kyoto"));
    const laptopTab2 = await secondTab(laptop.context, laptop.tab, account.email);

    // The phone, open all along, gets it while open: in its list, and whole when opened.
    await expect(phone.tab.chat.conversation("Plan a trip to Kyoto")).toBeVisible(ACROSS_DEVICES);
    await phone.tab.open("Plan a trip to Kyoto");
    await expect(phone.tab.chat.lastAssistantMessage()).toContainText(expectedReply("Plan a trip to Kyoto"));

    await phone.tab.chat.sendAndWaitForReply("And Nara?", expectedReply("And Nara?", "Plan a trip to Kyoto"));
    for (const tab of [laptop.tab, laptopTab2]) {
      await expect(tab.questions).toHaveText(["Plan a trip to Kyoto", "And Nara?"], ACROSS_DEVICES);
      await expect(tab.chat.lastAssistantMessage()).toContainText(expectedReply("And Nara?", "Plan a trip to Kyoto"));
    }
    // The laptop's next question carries the phone's turn as context.
    await laptop.tab.chat.sendAndWaitForReply("And Osaka?", expectedReply("And Osaka?", "Plan a trip to Kyoto"));
    await laptop.context.close();
    await phone.context.close();
  });

  test("tabs of one browser see each other's turns at once, without the server", async ({ browser, mock, account }) => {
    const laptop = await signedInDevice(browser, mock, account);
    await laptop.tab.chat.sendAndWaitForReply("first words", expectedReply("first words"));
    const other = await secondTab(laptop.context, laptop.tab, account.email);
    // This tab cannot reach the sync routes: what it shows comes from the other tab, through the browser.
    await other.page.route("**/history/**", (route) => route.abort());
    await laptop.tab.chat.sendAndWaitForReply("second words", expectedReply("second words", "first words"));
    await expect(other.questions).toHaveText(["first words", "second words"]);
    await expect(other.chat.lastAssistantMessage()).toContainText(expectedReply("second words", "first words"));
    await laptop.context.close();
  });

  test("two tabs sending to one conversation at once both keep their turns, after a reload and on the other device", async ({ browser, mock, account }) => {
    test.slow();
    const laptop = await signedInDevice(browser, mock, account);
    await laptop.tab.chat.sendAndWaitForReply("Shared start", expectedReply("Shared start"));
    const tabB = await secondTab(laptop.context, laptop.tab, account.email);
    await expect(tabB.chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");

    await laptop.tab.chat.input.fill("from tab A");
    await tabB.chat.input.fill("from tab B");
    await Promise.all([laptop.tab.chat.sendButton.click(), tabB.chat.sendButton.click()]);
    for (const tab of [laptop.tab, tabB]) await expect(tab.chat.lastAssistantMessage()).toContainText(/You said: "from tab [AB]"/);
    for (const tab of [laptop.tab, tabB]) await expect(tab.chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");

    await laptop.tab.page.reload();
    await laptop.tab.chat.expectSignedInAs(account.email);
    const afterReload = await questionsAcrossVersions(laptop.tab, 1);
    expect(afterReload).toEqual(expect.arrayContaining(["Shared start", "from tab A", "from tab B"]));

    const phone = await signedInDevice(browser, mock, account);
    await expect(phone.tab.chat.conversation("Shared start")).toBeVisible(ACROSS_DEVICES);
    await phone.tab.open("Shared start");
    await expect(phone.tab.chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");
    expect(await questionsAcrossVersions(phone.tab, 1)).toEqual(expect.arrayContaining(["from tab A", "from tab B"]));
    await laptop.context.close();
    await phone.context.close();
  });

  test("an edit keeps the earlier branch, ‹ 1 / 2 › on the question, here and on the other device", async ({ browser, mock, account }) => {
    test.slow();
    const laptop = await signedInDevice(browser, mock, account);
    const { chat } = laptop.tab;
    await chat.sendAndWaitForReply("first question", expectedReply("first question"));
    await chat.sendAndWaitForReply("second question", expectedReply("second question", "first question"));
    await chat.editUserMessage(chat.userMessages.first(), "a better first question");
    await expect(chat.lastAssistantMessage()).toContainText(expectedReply("a better first question"));
    await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");
    await expect(laptop.tab.questions).toHaveText(["a better first question"]);

    const versions = laptop.tab.questionVersions(chat.userMessages.first());
    await expect(versions.label).toHaveText("2 / 2");
    await versions.previous.click();
    await expect(versions.label).toHaveText("1 / 2");
    await expect(laptop.tab.questions).toHaveText(["first question", "second question"]);
    await expect(chat.assistantMessages.last()).toContainText(expectedReply("second question", "first question"));

    // The other device has both versions (it shows the newest first); the title stays the first question's.
    const phone = await signedInDevice(browser, mock, account);
    await expect(phone.tab.chat.conversation("first question")).toBeVisible(ACROSS_DEVICES);
    await phone.tab.open("first question");
    const onPhone = phone.tab.questionVersions(phone.tab.chat.userMessages.first());
    await expect(onPhone.label).toHaveText("2 / 2");
    await onPhone.previous.click();
    await expect(phone.tab.questions).toHaveText(["first question", "second question"]);
    await laptop.context.close();
    await phone.context.close();
  });

  test("a delete reaches the other device; a rename made offline goes up when back online", async ({ browser, mock, account }) => {
    test.slow();
    const laptop = await signedInDevice(browser, mock, account);
    const phone = await signedInDevice(browser, mock, account);
    await laptop.tab.chat.sendAndWaitForReply("keep me", expectedReply("keep me"));
    await laptop.tab.chat.newChatButton.click();
    await laptop.tab.chat.sendAndWaitForReply("delete me", expectedReply("delete me"));
    await expect(phone.tab.chat.conversation("delete me")).toBeVisible(ACROSS_DEVICES);
    await expect(phone.tab.chat.conversation("keep me")).toBeVisible(ACROSS_DEVICES);

    await laptop.tab.chat.deleteConversation("delete me");
    // Deleted for good when its Undo window ends; then the phone's list loses it.
    await expect(laptop.tab.chat.undoToasts).toHaveCount(0, { timeout: 20_000 });
    await expect(phone.tab.chat.conversation("delete me")).toHaveCount(0, ACROSS_DEVICES);

    await laptop.context.setOffline(true);
    const menu = await laptop.tab.chat.openConversationMenu("keep me");
    await menu.getByTestId("conversation-rename").click();
    const rename = laptop.tab.page.getByTestId("conversation-rename-input");
    await rename.fill("Renamed offline");
    await rename.press("Enter");
    await expect(laptop.tab.chat.conversation("Renamed offline")).toBeVisible();
    await laptop.context.setOffline(false);
    await expect(phone.tab.chat.conversation("Renamed offline")).toBeVisible(ACROSS_DEVICES);
    await laptop.context.close();
    await phone.context.close();
  });

  test("a generated title, a pin and an archive reach the other device and tab like a rename", async ({ browser, mock, account }) => {
    test.slow();
    const laptop = await signedInDevice(browser, mock, account, { generatedTitles: true });
    const phone = await signedInDevice(browser, mock, account);
    const question = "plan a relaxed three day trip to Kyoto in April with temples and gardens";
    const generated = "Plan a relaxed three day trip";
    await laptop.tab.chat.sendAndWaitForReply(question, expectedReply(question));
    await expect(laptop.tab.chat.conversation(generated)).toBeVisible();
    await expect(phone.tab.chat.conversation(generated)).toBeVisible(ACROSS_DEVICES);
    const laptopTab2 = await secondTab(laptop.context, laptop.tab, account.email);
    // The second tab finds the conversation titled: it asks for no title of its own.
    await expect(laptopTab2.chat.conversation(generated)).toBeVisible();
    const titleCalls = async () =>
      (await mock.responsesRequestsOf(account.accountId)).filter((request) => /short title/.test((request.body as { instructions?: string }).instructions ?? "")).length;
    expect(await titleCalls()).toBe(1);

    await (await laptop.tab.chat.openConversationMenu(generated)).getByTestId("conversation-pin").click();
    const headings = (tab: HistoryPage) => tab.page.getByTestId("sidebar").locator("[data-group-heading]");
    await expect(headings(phone.tab)).toHaveText(["Pinned"], ACROSS_DEVICES);
    await expect(headings(laptopTab2)).toHaveText(["Pinned"], ACROSS_DEVICES);

    await (await phone.tab.chat.openConversationMenu(generated)).getByTestId("conversation-archive").click();
    for (const tab of [laptop.tab, laptopTab2]) {
      await expect(tab.page.getByTestId("sidebar").getByTestId("archived-toggle")).toHaveText("Archived (1)", ACROSS_DEVICES);
    }
    await laptop.tab.page.reload();
    await laptop.tab.chat.expectSignedInAs(account.email);
    await expect(laptop.tab.page.getByTestId("sidebar").getByTestId("archived-toggle")).toHaveText("Archived (1)");
    expect(await titleCalls()).toBe(1);
    await laptop.context.close();
    await phone.context.close();
  });

  test("a share link opens signed out, shows no account, is noindex, and stops after revoke", async ({ browser, mock, account }) => {
    test.slow();
    const laptop = await signedInDevice(browser, mock, account);
    await laptop.tab.chat.sendAndWaitForReply("Share this plan", expectedReply("Share this plan"));
    const link = await laptop.tab.share("Share this plan");
    expect(link).toMatch(/\/share\/[A-Za-z0-9_-]{22}$/);

    const stranger = await browser.newContext();
    const reader = await stranger.newPage();
    const opened = await reader.goto(link);
    expect(opened?.status()).toBe(200);
    expect(opened?.headers()["x-robots-tag"]).toBe("noindex, nofollow");
    await expect(reader.locator('meta[name="robots"]')).toHaveAttribute("content", /noindex/);
    await expect(reader.getByTestId("shared-title")).toHaveText("Share this plan");
    await expect(reader.getByTestId("shared-message-user")).toHaveText(["Share this plan"]);
    await expect(reader.getByTestId("shared-message-assistant")).toContainText(expectedReply("Share this plan"));
    await expectNothingOfTheAccount(reader, account.email);
    expect((await stranger.cookies()).map((cookie) => cookie.name)).not.toContain("lwc_session");

    // Revoked from Chat settings' list of links.
    await laptop.tab.shareDialog.getByRole("button", { name: "Close" }).click();
    const settings = await laptop.tab.openSettings();
    await expect(settings.getByTestId("share-row")).toHaveCount(1);
    await settings.getByTestId("share-row-revoke").click();
    await expect(settings.getByTestId("shares-empty")).toBeVisible();
    const gone = await reader.goto(link);
    expect(gone?.status()).toBe(404);
    expect(gone?.headers()["x-robots-tag"]).toBe("noindex, nofollow");
    await expect(reader.getByTestId("share-not-found")).toContainText("revoked");
    const never = await reader.goto(link.replace(/[^/]+$/, "AAAAAAAAAAAAAAAAAAAAAA"));
    expect(never?.status()).toBe(404);
    await stranger.close();
    await laptop.context.close();
  });
});

/** The shared page holds no trace of the signed-in side: no email, usage, plan or sign-in control. */
async function expectNothingOfTheAccount(page: Page, email: string): Promise<void> {
  const text = (await page.locator("body").textContent()) ?? "";
  expect(text).not.toContain(email);
  for (const testId of ["signed-in-email", "usage-meter", "signed-in-plan", "sign-out-button", "sign-in-button", "chat-input"]) {
    await expect(page.getByTestId(testId)).toHaveCount(0);
  }
}
