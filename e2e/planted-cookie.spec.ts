import { expect, test } from "./fixtures";
import { APP_URL } from "./support/servers";

/**
 * Someone starts a sign-in of their own and plants its pending session cookie in the victim's
 * browser (a sibling subdomain or a plain-HTTP page of the host can set it). The page must not show
 * that code (the victim would approve it, and the planter's poll would sign the planter in as the
 * victim): it reads the session as signed out, and "sign in" starts the page's own login.
 */
async function plantedLogin(optIn: boolean): Promise<{ cookie: string; userCode: string }> {
  // A script that speaks only the contract (cookie alone), or another page that opted in to the nonce.
  const reply = await fetch(`${APP_URL}/api/provider/login`, {
    method: "POST",
    headers: optIn ? { "x-lwc-login-nonce": "new" } : {},
  });
  expect(reply.status).toBe(200);
  const { userCode } = (await reply.json()) as { userCode: string };
  const cookie = reply.headers.getSetCookie()[0]!.split(";")[0]!.split("=")[1]!;
  return { cookie, userCode };
}

for (const { name, optIn } of [
  { name: "started with the cookie alone", optIn: false },
  { name: "started by another page (with its own nonce)", optIn: true },
]) {
  test(`a planted pending cookie ${name} is not shown; signing in starts the page's own login`, async ({
    page,
    context,
    signInPage,
    chatPage,
    mock,
    account,
  }) => {
    const planted = await plantedLogin(optIn);
    await context.addCookies([{ name: "lwc_session", value: planted.cookie, url: APP_URL }]);

    await signInPage.goto();
    await expect(signInPage.signInButton).toBeVisible();
    await expect(signInPage.userCode).toBeHidden();

    const ownCode = await signInPage.startSignIn();
    expect(ownCode).not.toBe(planted.userCode);
    const cookies = await context.cookies(APP_URL);
    expect(cookies.find((cookie) => cookie.name === "lwc_session")?.value).not.toBe(planted.cookie);

    await mock.approve(ownCode, account);
    await chatPage.expectSignedInAs(account.email);

    // The planter's cookie leads nowhere: its login was replaced by the page's own.
    const planterStatus = await fetch(`${APP_URL}/api/provider/status`, { headers: { cookie: `lwc_session=${planted.cookie}` } });
    expect(await planterStatus.json()).toEqual({ status: "unauthenticated" });
    await expect(page).toHaveURL(new RegExp(`^${APP_URL.replace(/[.]/g, "\\.")}/`));
  });
}
