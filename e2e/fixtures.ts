import { test as base } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";
import { uniqueAccount } from "./support/accounts";
import { MockControl, type MockAccount } from "./support/mock-control";
import { turnGeneratedTitlesOff } from "./support/generated-titles";
import { signInThroughControlApi } from "./support/sign-in";

interface E2EOptions {
  /** Generated titles on (the app's default). Off unless a test asks (support/generated-titles.ts says why). */
  generatedTitles: boolean;
}

interface E2EFixtures {
  /** The mock upstream's control API. */
  mock: MockControl;
  /** An account no other test uses; faults armed for it touch this test only. */
  account: MockAccount;
  signInPage: SignInPage;
  chatPage: ChatPage;
  /** `page`, already signed in as `account` through the control API. */
  signedInChat: ChatPage;
}

// The second fixture argument is called `provide`, not `use`, so React's hook lint rules leave it alone.
export const test = base.extend<E2EFixtures & E2EOptions>({
  generatedTitles: [false, { option: true }],
  context: async ({ context, generatedTitles }, provide) => {
    if (!generatedTitles) await turnGeneratedTitlesOff(context);
    await provide(context);
  },
  mock: async ({}, provide) => {
    await provide(new MockControl());
  },
  account: async ({}, provide, testInfo) => {
    await provide(uniqueAccount(testInfo.title));
  },
  signInPage: async ({ page }, provide) => {
    await provide(new SignInPage(page));
  },
  chatPage: async ({ page }, provide) => {
    await provide(new ChatPage(page));
  },
  signedInChat: async ({ page, mock, account }, provide) => {
    await provide(await signInThroughControlApi(page, mock, account));
  },
});

export { expect } from "@playwright/test";
