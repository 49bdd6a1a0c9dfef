import { expect, type Locator, type Page } from "@playwright/test";

/** The mock identity provider's device approval page (GET /codex/device on the mock). */
export class MockApprovalPage {
  readonly userCodeInput: Locator;
  readonly emailInput: Locator;
  readonly approveButton: Locator;
  readonly denyButton: Locator;
  readonly result: Locator;

  constructor(readonly page: Page) {
    this.userCodeInput = page.getByTestId("mock-user-code");
    this.emailInput = page.getByTestId("mock-email");
    this.approveButton = page.getByTestId("mock-approve");
    this.denyButton = page.getByTestId("mock-deny");
    this.result = page.getByTestId("mock-result");
  }

  /** Type the code (and the email to sign in as) and approve, the way a person does. */
  async approve(userCode: string, email: string): Promise<void> {
    await this.userCodeInput.fill(userCode);
    await this.emailInput.fill(email);
    await this.approveButton.click();
    await expect(this.result).toHaveText(/approved/i);
  }

  async deny(userCode: string): Promise<void> {
    await this.userCodeInput.fill(userCode);
    await this.denyButton.click();
    await expect(this.result).toHaveText(/denied/i);
  }
}
