import type { Page } from "@playwright/test";
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
