import { expect, type Locator, type Page } from "@playwright/test";
import { MockApprovalPage } from "./mock-approval-page";

/** The signed-out and pending screens: sign-in button, device code, verification link, end states. */
export class SignInPage {
  readonly signInButton: Locator;
  readonly consentNote: Locator;
  readonly userCode: Locator;
  /** The sentences that name this site as the website ChatGPT may warn about. */
  readonly deviceCodeNotice: Locator;
  readonly copyCodeButton: Locator;
  readonly verificationLink: Locator;
  readonly qrCode: Locator;
  readonly countdown: Locator;
  readonly waiting: Locator;
  /** "Next check in 3 s" under the waiting line. */
  readonly nextCheck: Locator;
  readonly expired: Locator;
  readonly denied: Locator;
  readonly loginError: Locator;
  readonly newCodeButton: Locator;

  constructor(readonly page: Page) {
    this.signInButton = page.getByTestId("sign-in-button");
    this.consentNote = page.getByTestId("consent-note");
    this.userCode = page.getByTestId("user-code");
    this.deviceCodeNotice = page.getByTestId("device-code-notice");
    this.copyCodeButton = page.getByTestId("copy-code-button");
    this.verificationLink = page.getByTestId("verification-link");
    this.qrCode = page.getByTestId("qr-code");
    this.countdown = page.getByTestId("countdown");
    this.waiting = page.getByTestId("login-waiting");
    this.nextCheck = page.getByTestId("next-check");
    this.expired = page.getByTestId("login-expired");
    this.denied = page.getByTestId("login-denied");
    this.loginError = page.getByTestId("login-error");
    this.newCodeButton = page.getByTestId("new-code-button");
  }

  async goto(): Promise<void> {
    await this.page.goto("/");
  }

  /** Click "sign in" and return the device code the screen then shows. */
  async startSignIn(): Promise<string> {
    await this.signInButton.click();
    return this.readUserCode();
  }

  async readUserCode(): Promise<string> {
    await expect(this.userCode).toHaveText(/\S/);
    return (await this.userCode.innerText()).trim();
  }

  /** Ask for a fresh code from an end state and return it once it differs from `previousCode`. */
  async requestNewCode(previousCode: string): Promise<string> {
    await this.newCodeButton.click();
    await expect(this.userCode).toHaveText(/\S/);
    await expect(this.userCode).not.toHaveText(previousCode);
    return this.readUserCode();
  }

  /** Follow the verification link, which opens the provider's page in a new tab. */
  async openVerificationPage(): Promise<MockApprovalPage> {
    const popupOpened = this.page.waitForEvent("popup");
    await this.verificationLink.click();
    const popup = await popupOpened;
    await popup.waitForLoadState("domcontentloaded");
    return new MockApprovalPage(popup);
  }
}
