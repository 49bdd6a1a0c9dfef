import { expect, type Locator, type Page } from "@playwright/test";

/** The message box's document attachments (text files and PDFs) and those shown on sent messages. */
export class DocumentAttachments {
  readonly input: Locator;
  readonly button: Locator;
  /** Chips in the message box, waiting to be sent. */
  readonly pending: Locator;
  readonly reading: Locator;

  constructor(readonly page: Page) {
    this.input = page.getByTestId("attach-document-input");
    this.button = page.getByTestId("attach-document-button");
    this.pending = page.locator("form").getByTestId("document-attachment");
    this.reading = page.getByTestId("document-reading");
  }

  async attach(file: { name: string; mimeType: string; buffer: Buffer }): Promise<void> {
    await this.input.setInputFiles(file);
  }

  /** The chip of a pending document, once it has been read. */
  chip(name: string): Locator {
    return this.pending.filter({ has: this.page.getByTestId("document-name").getByText(name, { exact: true }) });
  }

  /** The document chips shown on a sent message. */
  onMessage(message: Locator): Locator {
    return message.getByTestId("document-attachment");
  }

  async waitUntilRead(): Promise<void> {
    await expect(this.reading).toHaveCount(0);
  }

  /**
   * Whether any script this page has loaded so far contains `marker` (the URLs come from the
   * Resource Timing entries, so scripts loaded before the check started count too).
   */
  async anyScriptContains(marker: string): Promise<boolean> {
    const urls = await this.page.evaluate(() =>
      performance
        .getEntriesByType("resource")
        .filter((entry) => (entry as PerformanceResourceTiming).initiatorType === "script" || entry.name.endsWith(".js"))
        .map((entry) => entry.name),
    );
    for (const url of new Set(urls)) {
      const body = await (await this.page.request.get(url)).text();
      if (body.includes(marker)) return true;
    }
    return false;
  }
}
