import { expect, test } from "./fixtures";

test.describe("sign-in end states", () => {
  test("an expired code says so, and a new code can still be approved", async ({
    signInPage,
    chatPage,
    mock,
    account,
  }) => {
    await signInPage.goto();
    const expiredCode = await signInPage.startSignIn();

    await mock.expire(expiredCode);
    await expect(signInPage.expired).toBeVisible();
    await expect(signInPage.expired).toHaveText(/expired/i);
    await expect(signInPage.userCode).toBeHidden();

    const freshCode = await signInPage.requestNewCode(expiredCode);
    expect(freshCode).not.toBe(expiredCode);
    await expect(signInPage.expired).toBeHidden();

    await mock.approve(freshCode, account);
    await chatPage.expectSignedInAs(account.email);
  });

  test("a denied approval says so, and a new code recovers", async ({ signInPage, chatPage, mock, account }) => {
    await signInPage.goto();
    const deniedCode = await signInPage.startSignIn();

    const approvalPage = await signInPage.openVerificationPage();
    await approvalPage.deny(deniedCode);
    await approvalPage.page.close();

    await expect(signInPage.denied).toBeVisible();
    await expect(signInPage.denied).toHaveText(/denied|declined|cancel/i);

    const freshCode = await signInPage.requestNewCode(deniedCode);
    await expect(signInPage.denied).toBeHidden();

    await mock.approve(freshCode, account);
    await chatPage.expectSignedInAs(account.email);
  });
});
