import { expect, test } from "./fixtures";

test.describe("the session survives reloads", () => {
  test("a reload while signed in stays signed in", async ({ page, signedInChat: chat, account }) => {
    await page.reload();
    await chat.expectSignedInAs(account.email);
    await expect(page.getByTestId("sign-in-button")).toBeHidden();
  });

  test("signing out sticks across a reload", async ({ page, signedInChat: chat, signInPage }) => {
    await chat.signOut();
    await expect(signInPage.signInButton).toBeVisible();
    await expect(chat.signedInEmail).toBeHidden();

    await page.reload();
    await expect(signInPage.signInButton).toBeVisible();
    await expect(chat.signedInEmail).toBeHidden();
  });

  test("a reload while pending resumes the same code, which can still be approved", async ({
    page,
    signInPage,
    chatPage,
    mock,
    account,
  }) => {
    await signInPage.goto();
    const userCode = await signInPage.startSignIn();

    await page.reload();
    await expect(signInPage.userCode).toHaveText(userCode);
    await expect(signInPage.signInButton).toBeHidden();

    await mock.approve(userCode, account);
    await chatPage.expectSignedInAs(account.email);
  });
});
