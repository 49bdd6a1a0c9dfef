import { test as base } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";
import { uniqueAccount } from "./support/accounts";
import { MockControl, type MockAccount } from "./support/mock-control";
import { signInThroughControlApi } from "./support/sign-in";

/** The browser's preference that turns generated titles off (lib/client/local-preferences.ts). */
const TITLES_OFF_KEY = "lwc:generate-titles";

interface E2EOptions {
  /**
   * Generated titles on (the app's default). Off unless a test asks: the title is one more model
   * call after a conversation's first answer, which would count against the suite's small rate
   * limit, take an armed fault and change the titles and the request lists other tests read.
   */
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
    if (!generatedTitles) {
      await context.addInitScript((key) => {
        try {
          window.localStorage.setItem(key, "off");
        } catch {
          // A page without storage (opaque origin) has no preference to set.
        }
      }, TITLES_OFF_KEY);
    }
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
