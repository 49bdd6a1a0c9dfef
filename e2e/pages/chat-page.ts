import { readFile } from "node:fs/promises";
import { expect, type Locator, type Page } from "@playwright/test";

interface MessageSnapshot {
  status: string | null;
  text: string;
}

/**
 * How long an approved sign-in may take to show the chat: the page's next poll (one interval), the
 * code exchange and the chat's first render. The suite's 10 s default is too tight for that chain
 * on a busy 2-core machine (CI measured 10-14 s with other jobs running).
 */
const SIGN_IN_TIMEOUT_MS = 30_000;

/** The signed-in screen: account header, model controls, conversation, composer. */
export class ChatPage {
  readonly signedInEmail: Locator;
  readonly signedInPlan: Locator;
  readonly signOutButton: Locator;
  readonly modelPicker: Locator;
  readonly reasoningEffort: Locator;
  readonly fastToggle: Locator;
  readonly input: Locator;
  readonly sendButton: Locator;
  readonly stopButton: Locator;
  readonly regenerateButton: Locator;
  readonly newChatButton: Locator;
  readonly userMessages: Locator;
  readonly assistantMessages: Locator;
  readonly reasoningSummary: Locator;
  readonly error: Locator;
  readonly fallbackNotice: Locator;
  readonly usageMeter: Locator;
  readonly retryTurnButton: Locator;
  readonly editTurnButton: Locator;
  readonly removeTurnButton: Locator;
  readonly failedUserMessages: Locator;
  readonly conversationItems: Locator;
  readonly storageNote: Locator;
  readonly attachInput: Locator;
  readonly attachButton: Locator;
  readonly attachments: Locator;
  readonly attachError: Locator;
  readonly searchButton: Locator;
  readonly searchDialog: Locator;
  readonly searchInput: Locator;
  readonly searchResults: Locator;
  readonly undoToasts: Locator;
  readonly exportAllButton: Locator;
  readonly importInput: Locator;
  readonly importStatus: Locator;
  readonly importError: Locator;
  /** Messages the chat could not show ("This message can't be shown"). */
  readonly unavailableMessages: Locator;
  /** The cited pages under the answers. */
  readonly sourceLinks: Locator;

  constructor(readonly page: Page) {
    this.signedInEmail = page.getByTestId("signed-in-email");
    this.signedInPlan = page.getByTestId("signed-in-plan");
    this.signOutButton = page.getByTestId("sign-out-button");
    this.modelPicker = page.getByTestId("model-picker");
    this.reasoningEffort = page.getByTestId("reasoning-effort");
    this.fastToggle = page.getByTestId("fast-toggle");
    this.input = page.getByTestId("chat-input");
    this.sendButton = page.getByTestId("send-button");
    this.stopButton = page.getByTestId("stop-button");
    this.regenerateButton = page.getByTestId("regenerate-button");
    this.newChatButton = page.getByTestId("new-chat-button");
    this.userMessages = page.getByTestId("message-user");
    this.assistantMessages = page.getByTestId("message-assistant");
    this.reasoningSummary = page.getByTestId("reasoning-summary");
    this.error = page.getByTestId("chat-error");
    this.fallbackNotice = page.getByTestId("fallback-notice");
    this.usageMeter = page.getByTestId("usage-meter");
    this.retryTurnButton = page.getByTestId("retry-turn-button");
    this.editTurnButton = page.getByTestId("edit-turn-button");
    this.removeTurnButton = page.getByTestId("remove-turn-button");
    this.failedUserMessages = page.locator('[data-testid="message-user"][data-failed="true"]');
    this.conversationItems = page.getByTestId("conversation-item");
    this.storageNote = page.getByTestId("storage-note");
    this.attachInput = page.getByTestId("attach-input");
    this.attachButton = page.getByTestId("attach-button");
    this.attachments = page.getByTestId("attachment");
    this.attachError = page.getByTestId("attach-error");
    this.searchButton = page.getByTestId("conversation-search-button");
    this.searchDialog = page.getByTestId("search-dialog");
    this.searchInput = page.getByTestId("search-input");
    this.searchResults = page.getByTestId("search-result");
    this.undoToasts = page.getByTestId("undo-toast");
    this.exportAllButton = page.getByTestId("export-all-button");
    this.importInput = page.getByTestId("import-input");
    this.importStatus = page.getByTestId("import-status");
    this.importError = page.getByTestId("import-error");
    this.unavailableMessages = page.getByTestId("message-unavailable");
    this.sourceLinks = page.getByTestId("web-search-sources").getByRole("link");
  }

  lastAssistantMessage(): Locator {
    return this.assistantMessages.last();
  }

  /** Signed in as `email`, with the model list loaded so a message can be sent. */
  async expectSignedInAs(email: string): Promise<void> {
    await expect(this.signedInEmail).toHaveText(email, { timeout: SIGN_IN_TIMEOUT_MS });
    // The picker stays disabled until the account's model list has arrived.
    await expect(this.modelPicker).toBeEnabled();
  }

  async selectModel(slug: string): Promise<void> {
    await this.modelPicker.selectOption(slug);
    await expect(this.modelPicker).toHaveValue(slug);
  }

  /** Type a message and press the send button; returns without waiting for the reply. */
  async send(text: string): Promise<void> {
    await expect(this.input).toBeEditable();
    await this.input.fill(text);
    await this.sendButton.click();
    await expect(this.userMessages.last()).toContainText(text);
  }

  /** Send and wait for the reply to finish streaming; returns the finished assistant message. */
  async sendAndWaitForReply(text: string, expectedText: string): Promise<Locator> {
    const repliesBefore = await this.assistantMessages.count();
    await this.send(text);
    await expect(this.assistantMessages).toHaveCount(repliesBefore + 1);
    const reply = this.lastAssistantMessage();
    await expect(reply).toContainText(expectedText);
    await expect(reply).toHaveAttribute("data-status", "done");
    return reply;
  }

  /** Status and text of a message read in one step, so the two belong to the same moment. */
  async snapshot(message: Locator): Promise<MessageSnapshot> {
    return message.evaluate((element) => ({
      status: element.getAttribute("data-status"),
      text: element.textContent ?? "",
    }));
  }

  /** Opens the in-place editor of a user message, replaces its text and sends it. */
  async editUserMessage(message: Locator, text: string): Promise<void> {
    await message.hover();
    await message.getByTestId("edit-message-button").click();
    const input = this.page.getByTestId("edit-message-input");
    await input.fill(text);
    await this.page.getByTestId("edit-message-send").click();
  }

  /** Signs out, keeping this browser's conversations (the dialog's first choice). */
  async signOut(): Promise<void> {
    await this.signOutButton.click();
    await this.page.getByTestId("sign-out-confirm").click();
  }

  /** Signs out and forgets this device's conversations, drafts and preferences. */
  async signOutAndForget(): Promise<void> {
    await this.signOutButton.click();
    await this.page.getByTestId("sign-out-forget").click();
  }

  /** The conversation list entry with this title. */
  conversation(title: string): Locator {
    return this.conversationItems.filter({ has: this.page.getByTestId("conversation-link").getByText(title, { exact: true }) });
  }

  /** Opens the options menu of a conversation's row and returns the menu. */
  async openConversationMenu(title: string): Promise<Locator> {
    const row = this.conversation(title);
    await row.hover();
    await row.getByTestId("conversation-menu-button").click();
    const menu = this.page.getByTestId("conversation-menu");
    await expect(menu).toBeVisible();
    return menu;
  }

  /** Deletes a conversation through its row menu (it can still be taken back with Undo). */
  async deleteConversation(title: string): Promise<void> {
    const menu = await this.openConversationMenu(title);
    await menu.getByTestId("conversation-delete").click();
  }

  /** Runs `action` (a click that saves a file) and returns the downloaded file's name and text. */
  async download(action: () => Promise<void>): Promise<{ name: string; text: string }> {
    const started = this.page.waitForEvent("download");
    await action();
    const download = await started;
    const path = await download.path();
    return { name: download.suggestedFilename(), text: await readFile(path, "utf8") };
  }

  /** The `c` query parameter: the open conversation's id, or null for a new chat. */
  conversationIdInUrl(): string | null {
    return new URL(this.page.url()).searchParams.get("c");
  }
}
