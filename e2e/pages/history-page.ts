import { expect, type Browser, type BrowserContext, type Locator, type Page } from "@playwright/test";
import type { MockAccount, MockControl } from "../support/mock-control";
import { turnGeneratedTitlesOff } from "../support/generated-titles";
import { signInThroughControlApi } from "../support/sign-in";
import { ChatPage } from "./chat-page";

/** Another device or tab sees a change within its polling interval (5 s) plus a push; room for a busy machine. */
export const ACROSS_DEVICES = { timeout: 25_000 };

/**
 * What a page shows of the chat history kept by the server: where chats are kept, Chat settings
 * (instructions, shared links, "Delete my chats from the server"), a conversation's Share dialog,
 * and a question's versions.
 */
export class HistoryPage {
  readonly chat: ChatPage;
  readonly notice: Locator;
  readonly syncNote: Locator;
  readonly settingsButton: Locator;
  readonly settings: Locator;
  readonly shareDialog: Locator;
  /** The text of each question on screen (without its version switcher). */
  readonly questions: Locator;

  constructor(readonly page: Page) {
    this.chat = new ChatPage(page);
    this.notice = page.getByTestId("history-notice");
    this.syncNote = page.getByTestId("history-sync-note");
    this.settingsButton = page.getByTestId("chat-settings-button");
    this.settings = page.getByTestId("chat-settings-dialog");
    this.shareDialog = page.getByTestId("share-dialog");
    this.questions = page.getByTestId("question-text");
  }

  async openSettings(): Promise<Locator> {
    await this.settingsButton.click();
    await expect(this.settings).toBeVisible();
    return this.settings;
  }

  async closeSettings(): Promise<void> {
    await this.settings.getByRole("button", { name: "Close" }).click();
    await expect(this.settings).toBeHidden();
  }

  /** Opens a conversation of the list by its title. */
  async open(title: string): Promise<void> {
    await this.chat.conversation(title).getByTestId("conversation-link").click();
    await expect(this.chat.conversation(title)).toHaveAttribute("data-active", "true");
  }

  /** The "‹ 1 / 2 ›" switcher of a question. */
  questionVersions(question: Locator): { label: Locator; previous: Locator; next: Locator } {
    return {
      label: question.getByTestId("question-version-label"),
      previous: question.getByTestId("question-version-previous"),
      next: question.getByTestId("question-version-next"),
    };
  }

  /** Makes a share link of a conversation from its row menu; returns the link. */
  async share(title: string): Promise<string> {
    const menu = await this.chat.openConversationMenu(title);
    await menu.getByTestId("conversation-share").click();
    await expect(this.shareDialog).toBeVisible();
    await this.shareDialog.getByTestId("share-create").click();
    const link = this.shareDialog.getByTestId("share-link");
    await expect(link).toHaveCount(1);
    return link.inputValue();
  }

  /** The user messages' texts, in order. */
  questionTexts(): Promise<string[]> {
    return this.questions.evaluateAll((messages) => messages.map((message) => message.textContent ?? ""));
  }
}

/** One device: a browser context signed in as the account, with a first tab; generated titles off unless asked for, as in the suite's own pages. */
export async function signedInDevice(
  browser: Browser,
  mock: MockControl,
  account: MockAccount,
  { generatedTitles = false }: { generatedTitles?: boolean } = {},
): Promise<{ context: BrowserContext; tab: HistoryPage }> {
  const context = await browser.newContext();
  if (!generatedTitles) await turnGeneratedTitlesOff(context);
  const page = await context.newPage();
  await signInThroughControlApi(page, mock, account);
  return { context, tab: new HistoryPage(page) };
}

/** Another tab of the device, on the same address as `like`. */
export async function secondTab(context: BrowserContext, like: HistoryPage, email: string): Promise<HistoryPage> {
  const page = await context.newPage();
  await page.goto(like.page.url());
  const tab = new HistoryPage(page);
  await tab.chat.expectSignedInAs(email);
  return tab;
}
