import { expect, test } from "./fixtures";
import { APP_PORT, APP_URL, MOCK_UPSTREAM_URL } from "./support/servers";

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

test.describe("the code screen prepares the person for ChatGPT's warning", () => {
  const notice = (hostName: string) =>
    `ChatGPT may warn you that a website gave you this code: that website is ${hostName}, the site you are on. ` +
    "Signing in lets it use the models on your ChatGPT plan for you; it never sees your password.";

  test("it names this site by the host name in the page's own address", async ({ page, signInPage }) => {
    await signInPage.goto();
    await signInPage.startSignIn();
    const hostName = new URL(page.url()).hostname;
    expect(hostName).toBe("127.0.0.1");
    await expect(signInPage.deviceCodeNotice).toHaveText(notice(hostName));
    await expect(signInPage.verificationLink).toBeVisible();
  });

  test("opened under another name (localhost), it says that name", async ({ page, signInPage }) => {
    await page.goto(`http://localhost:${APP_PORT}/`);
    await signInPage.startSignIn();
    await expect(signInPage.deviceCodeNotice).toHaveText(notice("localhost"));
  });
});
