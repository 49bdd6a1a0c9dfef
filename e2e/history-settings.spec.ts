import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "./fixtures";
import { ACROSS_DEVICES, signedInDevice } from "./pages/history-page";
import { expectedReply } from "./support/mock-replies";
import { signInThroughControlApi } from "./support/sign-in";
import { storedConversation, storeConversations } from "./support/stored-conversations";

/**
 * The person decides where chats are kept (docs/web-app.md#where-chats-are-kept): the first chat's
 * line and Chat settings, this device only (nothing sent) and back (what this browser kept goes up),
 * their own instructions, and "Delete my chats from the server".
 */
test.describe("where chats are kept, and the person's settings", () => {
  test("keeping chats on this device only sends nothing; back on the server, what this browser kept goes up", async ({ browser, mock, account }) => {
    test.slow();
    const laptop = await signedInDevice(browser, mock, account);
    const { tab } = laptop;
    await expect(tab.notice).toContainText("kept on this server");
    await expect(tab.chat.storageNote).toContainText("Kept on the server");
    await tab.notice.getByTestId("history-keep-here").click();
    await expect(tab.notice).toHaveCount(0);
    await expect(tab.chat.storageNote).toContainText("Kept in this browser only: you chose");

    const sync: string[] = [];
    tab.page.on("request", (request) => {
      if (new URL(request.url()).pathname.includes("/history/")) sync.push(request.url());
    });
    await tab.chat.sendAndWaitForReply("Only on this laptop", expectedReply("Only on this laptop"));
    await storeConversations(tab.page, account.accountId, [storedConversation("Kept before", [["an older question", "an older answer"]])]);
    await tab.page.reload();
    await tab.chat.expectSignedInAs(account.email);
    await expect(tab.chat.conversationItems).toHaveCount(2);
    expect(sync).toEqual([]);
    // The sign-out dialog offers a backup first, since the server does not hold these.
    await tab.chat.signOutButton.click();
    await expect(tab.page.getByTestId("sign-out-export")).toBeVisible();
    await tab.page.getByRole("button", { name: "Cancel" }).click();

    const settings = await tab.openSettings();
    await expect(settings.getByTestId("history-place")).toHaveAttribute("data-place", "device");
    await settings.getByTestId("history-keep-on-server").click();
    await expect(settings.getByTestId("history-place")).toHaveAttribute("data-place", "server");
    await tab.closeSettings();
    await expect(tab.syncNote).toContainText("2 chats from this browser are now kept on the server too");

    const phone = await signedInDevice(browser, mock, account);
    await expect(phone.tab.chat.conversation("Kept before")).toBeVisible(ACROSS_DEVICES);
    await expect(phone.tab.chat.conversation("Only on this laptop")).toBeVisible(ACROSS_DEVICES);
    await phone.tab.open("Kept before");
    await expect(phone.tab.chat.lastAssistantMessage()).toContainText("an older answer");
    await laptop.context.close();
    await phone.context.close();
  });

  test("the person's own instructions reach the model from every device", async ({ browser, mock, account }) => {
    const laptop = await signedInDevice(browser, mock, account);
    const settings = await laptop.tab.openSettings();
    await settings.getByTestId("instructions-input").fill("Answer like a ship's captain.");
    await settings.getByTestId("instructions-save").click();
    await expect(settings.getByTestId("instructions-status")).toHaveText("Saved.");
    await laptop.tab.closeSettings();

    const phone = await signedInDevice(browser, mock, account);
    await phone.tab.chat.sendAndWaitForReply("Where to next?", expectedReply("Where to next?"));
    const sent = JSON.stringify((await mock.responsesRequestsOf(account.accountId)).at(-1)?.body);
    expect(sent).toContain("Answer like a ship's captain.");
    // The phone's settings show them too, once it has synced.
    const onPhone = await phone.tab.openSettings();
    await expect(onPhone.getByTestId("instructions-input")).toHaveValue("Answer like a ship's captain.", ACROSS_DEVICES);
    await laptop.context.close();
    await phone.context.close();
  });

  test("“Delete my chats from the server” removes them everywhere after one confirmation", async ({ browser, mock, account }) => {
    test.slow();
    const laptop = await signedInDevice(browser, mock, account);
    const phone = await signedInDevice(browser, mock, account);
    await laptop.tab.chat.sendAndWaitForReply("soon gone", expectedReply("soon gone"));
    await expect(phone.tab.chat.conversation("soon gone")).toBeVisible(ACROSS_DEVICES);
    // Nothing of it is deleted before the confirmation; the server still holds it.
    await expect(laptop.tab.chat.storageNote).toContainText("Kept on the server");

    const settings = await laptop.tab.openSettings();
    await settings.getByTestId("delete-history").click();
    await expect(settings.getByTestId("delete-history-confirmation")).toBeVisible();
    await settings.getByTestId("delete-history-confirm").click();
    await expect(settings.getByTestId("delete-history-done")).toHaveText("Deleted 1 chat from the server.");
    await laptop.tab.closeSettings();
    await expect(laptop.tab.chat.conversationItems).toHaveCount(0);
    await expect(phone.tab.chat.conversationItems).toHaveCount(0, ACROSS_DEVICES);
    await laptop.context.close();
    await phone.context.close();
  });

  test("forgetting this device loses nothing the server keeps: signing in again brings the chats back", async ({ page, signedInChat: chat, mock, account }) => {
    await chat.sendAndWaitForReply("kept on the server", expectedReply("kept on the server"));
    await chat.signOutButton.click();
    await expect(page.getByTestId("sign-out-dialog")).toContainText("the server keeps them");
    await expect(page.getByTestId("sign-out-export")).toHaveCount(0);
    await page.getByTestId("sign-out-forget").click();
    await expect(page.getByTestId("sign-in-button")).toBeVisible();
    const again = await signInThroughControlApi(page, mock, account);
    await expect(again.conversation("kept on the server")).toBeVisible(ACROSS_DEVICES);
  });

  test("forgetting this device while the server cannot be reached forgets nothing, and says so", async ({ page, signedInChat: chat }) => {
    await chat.sendAndWaitForReply("not forgotten", expectedReply("not forgotten"));
    // The history service out of reach (the browser's requests to it fail), as on a lost connection.
    await page.route("**/history/changes", (route) => route.abort("internetdisconnected"));
    await chat.signOutButton.click();
    await page.getByTestId("sign-out-forget").click();
    await expect(page.getByTestId("sign-out-forget-failed")).toBeVisible();
    await expect(page.getByTestId("sign-out-dialog")).toBeVisible();
    await page.getByTestId("sign-out-dialog").getByRole("button", { name: "Cancel" }).click();
    await expect(chat.conversation("not forgotten")).toBeVisible();
    await page.unroute("**/history/changes");
  });

  test("the server's data folder holds no message text", async ({ browser, mock, account }) => {
    const dataDir = process.env.E2E_DATA_DIR;
    test.skip(!dataDir || process.env.E2E_HISTORY_PAIR === "1", "only the suite's own server keeps its chats in a folder of this run");
    const laptop = await signedInDevice(browser, mock, account);
    const marker = `zq-sealed-marker-${account.accountId.slice(-8)}`;
    await laptop.tab.chat.sendAndWaitForReply(`Remember ${marker}`, expectedReply(`Remember ${marker}`));
    const conversationId = laptop.tab.chat.conversationIdInUrl();
    expect(conversationId).toBeTruthy();
    // The ids the browsers made are stored as they are: once this one is on disk, so is the message.
    await expect.poll(() => folderBytes(dataDir!).includes(conversationId!), ACROSS_DEVICES).toBe(true);
    expect(folderBytes(dataDir!)).not.toContain(marker);
    await laptop.context.close();
  });
});

/** Every file under a folder, as latin1 text (any byte sequence searchable). */
function folderBytes(folder: string): string {
  let text = "";
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    try {
      text += statSync(path).isDirectory() ? folderBytes(path) : readFileSync(path).toString("latin1");
    } catch {
      // A file the database replaced meanwhile.
    }
  }
  return text;
}
