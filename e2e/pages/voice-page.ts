import { expect, type Locator, type Page } from "@playwright/test";

/** The voice dialog over the chat screen. */
export class VoicePage {
  readonly openButton: Locator;
  readonly dialog: Locator;
  readonly startButton: Locator;
  readonly status: Locator;
  readonly muteButton: Locator;
  readonly hangUpButton: Locator;
  readonly closeButton: Locator;
  readonly retryButton: Locator;
  readonly error: Locator;
  readonly textInput: Locator;
  readonly textSend: Locator;
  readonly userLines: Locator;
  readonly assistantLines: Locator;
  readonly userLevel: Locator;
  readonly assistantLevel: Locator;
  readonly transportSelect: Locator;
  readonly modeSelect: Locator;
  readonly optionsToggle: Locator;
  readonly transcript: Locator;
  readonly agentModeCheckbox: Locator;

  constructor(readonly page: Page) {
    this.openButton = page.getByTestId("voice-button");
    this.dialog = page.getByTestId("voice-dialog");
    this.startButton = page.getByTestId("voice-start");
    this.status = page.getByTestId("voice-status");
    this.muteButton = page.getByTestId("voice-mute");
    this.hangUpButton = page.getByTestId("voice-hang-up");
    this.closeButton = page.getByTestId("voice-close");
    this.retryButton = page.getByTestId("voice-retry");
    this.error = page.getByTestId("voice-error");
    this.textInput = page.getByTestId("voice-text-input");
    this.textSend = page.getByTestId("voice-text-send");
    this.userLines = page.getByTestId("voice-line-user");
    this.assistantLines = page.getByTestId("voice-line-assistant");
    this.userLevel = page.getByTestId("voice-level-user");
    this.assistantLevel = page.getByTestId("voice-level-assistant");
    this.transportSelect = page.getByTestId("voice-transport");
    this.modeSelect = page.getByTestId("voice-mode");
    this.optionsToggle = this.dialog.locator("summary", { hasText: "Options" });
    this.transcript = this.dialog.getByRole("region", { name: "Transcript" });
    this.agentModeCheckbox = page.getByTestId("voice-agent-mode");
  }

  async open(): Promise<void> {
    await this.openButton.click();
    await expect(this.dialog).toBeVisible();
  }

  async chooseTransport(transport: string): Promise<void> {
    await this.optionsToggle.click();
    await this.transportSelect.selectOption(transport);
  }

  async chooseVoiceMode(voiceMode: string): Promise<void> {
    await this.optionsToggle.click();
    await this.modeSelect.selectOption(voiceMode);
  }

  /** Press start and wait until the call is up (listening or the assistant already speaking). */
  async startAndWaitForCall(): Promise<void> {
    await this.startButton.click();
    await expect(this.status).toHaveAttribute("data-status", /^(listening|speaking)$/, { timeout: 20_000 });
  }

  async level(meter: Locator): Promise<number> {
    return Number(await meter.getAttribute("aria-valuenow"));
  }

  /**
   * Type into the call and wait for the line to join the transcript. Not necessarily the last user
   * line: the mock's scripted spoken turn can land after it when the words are typed first.
   */
  async say(text: string): Promise<void> {
    await this.textInput.fill(text);
    await this.textSend.click();
    await expect(this.typedLine(text)).toHaveCount(1);
  }

  /** The transcript line of text typed into the call. */
  typedLine(text: string): Locator {
    return this.userLines.filter({ hasText: `You (typed): ${text}` });
  }
}
