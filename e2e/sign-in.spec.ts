import { expect, test } from "./fixtures";

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
    expect(approvalPage.page).not.toBe(page);
    await approvalPage.approve(userCode, account.email);

    // The first tab notices by itself (it polls the session); nobody touches it.
    await expect(chatPage.signedInEmail).toHaveText(account.email);
    await expect(signInPage.userCode).toBeHidden();
    await expect(chatPage.signOutButton).toBeVisible();
    await expect(chatPage.modelPicker).toBeVisible();
  });
});
