import { expect, type Page } from "@playwright/test";
import { ChatPage } from "../pages/chat-page";
import { SignInPage } from "../pages/sign-in-page";
import type { MockAccount, MockControl } from "./mock-control";

/**
 * The quick way in for tests that are not about signing in: click "sign in", read the code off
 * the screen, approve it through the mock's control API, wait for the signed-in screen.
 */
export async function signInThroughControlApi(page: Page, mock: MockControl, account: MockAccount): Promise<ChatPage> {
  const signIn = new SignInPage(page);
  await signIn.goto();
  const userCode = await signIn.startSignIn();
  await mock.approve(userCode, account);
  const chat = new ChatPage(page);
  await chat.expectSignedInAs(account.email);
  return chat;
}

/**
 * The person keeps this browser's chats on this device only (the first chat's line offers it): the
 * page then neither sends nor reads chats on the server, as when the server keeps none. For tests
 * of what stays in the browser (export, import, forgetting this device).
 */
export async function keepChatsOnThisDevice(page: Page): Promise<void> {
  await page.getByTestId("history-keep-here").click();
  await expect(page.getByTestId("storage-note")).toContainText("you chose to keep chats on this device");
}
