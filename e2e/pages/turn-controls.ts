import { expect, type Locator, type Page } from "@playwright/test";
import type { ChatPage } from "./chat-page";

/**
 * The parts of a conversation's turns beyond sending and reading: an answer cut off by a reload
 * (Continue, Try again), an answer's versions (‹ 1 / 2 ›), images a text-only model did not get,
 * and the Keyboard shortcuts dialog.
 */
export class TurnControls {
  readonly interruptedAnswers: Locator;
  readonly continueButton: Locator;
  readonly interruptedRetryButton: Locator;
  readonly imagesLeftOutNotice: Locator;
  readonly shortcutsDialog: Locator;
  readonly sidebar: Locator;
  readonly conversationsDrawer: Locator;

  constructor(readonly page: Page) {
    this.interruptedAnswers = page.locator('[data-testid="message-assistant"][data-interrupted="true"]');
    this.continueButton = page.getByTestId("continue-answer-button");
    this.interruptedRetryButton = page.getByTestId("interrupted-retry-button");
    this.imagesLeftOutNotice = page.getByTestId("images-left-out-notice");
    this.shortcutsDialog = page.getByTestId("shortcuts-dialog");
    this.sidebar = page.getByTestId("sidebar");
    this.conversationsDrawer = page.getByTestId("conversations-drawer");
  }

  /** The "‹ 1 / 2 ›" switcher of an answer. */
  versions(answer: Locator): { label: Locator; previous: Locator; next: Locator } {
    return {
      label: answer.getByTestId("answer-version-label"),
      previous: answer.getByTestId("answer-version-previous"),
      next: answer.getByTestId("answer-version-next"),
    };
  }

  /** The note on a user message that the conversation's images were left out for a text-only model. */
  imagesLeftOutNote(userMessage: Locator): Locator {
    return userMessage.getByTestId("images-left-out");
  }

  /**
   * The text of a conversation's last answer as this browser's IndexedDB holds it right now (the
   * app's own database), or null: what a reload would show.
   */
  savedLastAnswer(accountId: string, conversationId: string): Promise<{ text: string; interrupted: boolean } | null> {
    return this.page.evaluate(
      ([account, id]) =>
        new Promise<{ text: string; interrupted: boolean } | null>((resolve, reject) => {
          const request = indexedDB.open("lwc-chat");
          request.onerror = () => reject(request.error);
          request.onsuccess = () => {
            const db = request.result;
            const get = db.transaction("conversations").objectStore("conversations").get([account, id]);
            get.onsuccess = () => {
              db.close();
              type Saved = { role: string; parts: { type: string; text?: string }[]; metadata?: { interrupted?: boolean } };
              const last = (get.result as { messages?: Saved[] } | undefined)?.messages?.at(-1);
              if (!last || last.role !== "assistant") return resolve(null);
              const text = last.parts.map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("");
              resolve({ text, interrupted: last.metadata?.interrupted === true });
            };
            get.onerror = () => reject(get.error);
          };
        }),
      [accountId, conversationId] as const,
    );
  }

  /**
   * Sends `question` and waits until its answer shows `echoStart` and this browser has saved that
   * much of it (so a reload or a closed tab now cuts it off). Returns the conversation's id.
   */
  async sendUntilPartSaved(chat: ChatPage, accountId: string, question: string, echoStart: string): Promise<string> {
    await chat.send(question);
    await expect(chat.assistantMessages.last()).toContainText(echoStart);
    await expect.poll(() => chat.conversationIdInUrl()).not.toBeNull();
    const id = chat.conversationIdInUrl()!;
    await expect.poll(async () => (await this.savedLastAnswer(accountId, id))?.text ?? "").toContain(echoStart);
    return id;
  }

  /**
   * The account's usable models as the app's /models lists them (not one marked unavailable: the
   * picker will not choose it), split by whether they take images.
   */
  async modelsByImageInput(): Promise<{ withImages: { slug: string; displayName: string }[]; textOnly: { slug: string; displayName: string }[] }> {
    const details = await this.page.evaluate(async () => {
      const response = await fetch("/api/provider/models", { credentials: "include" });
      const body = (await response.json()) as {
        modelDetails?: { slug: string; displayName: string; inputModalities: string[]; unavailable?: unknown }[];
      };
      return (body.modelDetails ?? []).filter((model) => !model.unavailable);
    });
    return {
      withImages: details.filter((model) => model.inputModalities.includes("image")),
      textOnly: details.filter((model) => !model.inputModalities.includes("image")),
    };
  }
}
