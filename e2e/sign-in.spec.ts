import { expect, test } from "./fixtures";
import { APP_URL, MOCK_UPSTREAM_URL } from "./support/servers";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

test.describe("sign in the way a person does", () => {
  test("approving the code on the provider's page in a second tab signs the first tab in", async ({
    page,
    signInPage,
    chatPage,
    account,
  }) => {
    await signInPage.goto();
    await expect(signInPage.consentNote).toBeVisible();

    const userCode = await signInPage.startSignIn();
    await expect(signInPage.waiting).toBeVisible();
    await expect(signInPage.qrCode).toBeVisible();
    await expect(signInPage.countdown).toHaveText(/^\s*\d{1,2}:\d{2}\s*$/);
    await expect(signInPage.verificationLink).toHaveAttribute("target", "_blank");

    const approvalPage = await signInPage.openVerificationPage();
    // The new tab shows the provider's verification page (the mock's), and the first tab stays on the app.
    await expect(approvalPage.page).toHaveURL(new RegExp(`^${escapeRegExp(MOCK_UPSTREAM_URL)}/codex/device(\\?.*)?$`));
    await expect(page).toHaveURL(new RegExp(`^${escapeRegExp(APP_URL)}/`));
    await approvalPage.approve(userCode, account.email);

    // The first tab notices by itself (it polls the session); nobody touches it.
    await chatPage.expectSignedInAs(account.email);
    await expect(signInPage.userCode).toBeHidden();
    await expect(chatPage.signOutButton).toBeVisible();
    await expect(chatPage.modelPicker).toBeVisible();
  });
});
