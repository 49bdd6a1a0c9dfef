import type { NextServer } from "../test-support/next-server";
import { expect, test } from "./fixtures";
import { HistoryPage } from "./pages/history-page";
import { SignInPage } from "./pages/sign-in-page";
import { startExtraApp } from "./support/extra-app";
import { expectedReply } from "./support/mock-replies";

let app: NextServer;

test.describe.configure({ mode: "serial" });
test.beforeAll(async () => {
  app = await startExtraApp({ LWC_CHAT_HISTORY: "browser" });
});
test.afterAll(async () => {
  await app?.stop();
});

test("with LWC_CHAT_HISTORY=browser the page says chats stay on this device, syncs nothing and offers a backup before forgetting", async ({ page, mock, account }) => {
  const sync: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.includes("/history/")) sync.push(request.url());
  });
  const signIn = new SignInPage(page);
  await page.goto(app.url);
  const code = await signIn.startSignIn();
  await mock.approve(code, account);
  const tab = new HistoryPage(page);
  await tab.chat.expectSignedInAs(account.email);

  await expect(tab.notice).toHaveAttribute("data-place", "browser");
  await expect(tab.notice).toContainText("this server keeps none");
  await expect(tab.notice.getByTestId("history-keep-here")).toHaveCount(0);
  await expect(tab.chat.storageNote).toHaveText("Kept in this browser only, never on the server.");
  await tab.chat.sendAndWaitForReply("Stays here", expectedReply("Stays here"));
  // The first chat's line has done its job.
  await expect(tab.notice).toHaveCount(0);
  const menu = await tab.chat.openConversationMenu("Stays here");
  await expect(menu.getByTestId("conversation-share")).toHaveCount(0);
  await page.keyboard.press("Escape");

  const settings = await tab.openSettings();
  await expect(settings.getByTestId("history-place")).toHaveAttribute("data-place", "browser");
  await expect(settings.getByTestId("delete-history")).toHaveCount(0);
  await expect(settings.getByTestId("instructions-input")).toHaveCount(0);
  await tab.closeSettings();

  await tab.chat.signOutButton.click();
  const exported = await tab.chat.download(() => page.getByTestId("sign-out-export").click());
  expect(exported.name).toMatch(/^chats-backup-.*\.json$/);
  expect(exported.text).toContain("Stays here");
  expect(sync).toEqual([]);
});
