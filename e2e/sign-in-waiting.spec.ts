/**
 * The waiting screen of a sign-in (issue #19's UI nits): it says when the page checks next, each
 * check lands when the server may ask the provider again (the page's own scheduling never adds to
 * the provider's interval, also after a reload), and the mock's approval page comes up with the
 * code already filled in.
 *
 * The timing test runs against its own mock and app (a 4 s interval, enforced the way the provider
 * does, and no other test's codes), so what it measures is this page's polling alone.
 */
import { startMockUpstream, type MockUpstream } from "../mock-upstream/server";
import type { NextServer } from "../test-support/next-server";
import { expect, test } from "./fixtures";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";
import { startExtraApp } from "./support/extra-app";
import { saveScreenshot } from "./support/screenshots";

const INTERVAL_SECONDS = 4;
const UPSTREAM_POLL_PATH = "/api/accounts/deviceauth/token";

for (const viewport of [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
]) {
  test.describe(`at ${viewport.width} px`, () => {
    test.use({ viewport });

    test("the waiting screen says when it checks next", async ({ page, signInPage }, testInfo) => {
      await signInPage.goto();
      await signInPage.startSignIn();
      await expect(signInPage.nextCheck).toHaveText(/^(Next check in \d+ s|Checking now…)$/);
      await expect(signInPage.nextCheck).toBeInViewport({ ratio: 1 });
      await saveScreenshot(page, testInfo, `nits-waiting-${viewport.width}`);
    });
  });
}

test.describe("against a private mock with a 4 s interval", () => {
  test.describe.configure({ mode: "serial" });
  let mock: MockUpstream;
  let app: NextServer;

  test.beforeAll(async () => {
    mock = await startMockUpstream({ pollIntervalSeconds: INTERVAL_SECONDS, enforcePollInterval: true });
    app = await startExtraApp({ LWC_ISSUER_URL: mock.issuer, LWC_CODEX_BASE_URL: mock.codexBaseUrl });
  });
  test.afterAll(async () => {
    await app?.stop();
    await mock?.close();
  });

  test("the approval page opens with the app's code filled in", async ({ page, account }) => {
    const signIn = new SignInPage(page);
    await page.goto(app.url);
    const userCode = await signIn.startSignIn();
    const approval = await signIn.openVerificationPage();
    await expect(approval.userCodeInput).toHaveValue(userCode);
    // Nothing typed into the code field: the prefilled code is what gets approved.
    await approval.emailInput.fill(account.email);
    await approval.approveButton.click();
    await expect(approval.result).toHaveText(/approved/i);
    await new ChatPage(page).expectSignedInAs(account.email);
  });

  // Event-driven: after the reload the page's timers run on a clock the test moves, so where the check
  // lands is read in the page's own time, whatever the machine's load.
  test("after a reload the page checks when the server says, not a whole interval later; every check is one the provider takes, and the chat follows an approval", async ({ page, account }) => {
    const signIn = new SignInPage(page);
    await page.goto(app.url);
    const userCode = await signIn.startSignIn();
    const pollsBefore = mock.requests({ path: UPSTREAM_POLL_PATH }).length;
    // The first check, one interval after the code.
    await expect.poll(() => mock.requests({ path: UPSTREAM_POLL_PATH }).length, { timeout: (INTERVAL_SECONDS + 10) * 1000 }).toBe(pollsBefore + 1);

    // Reload while the next check is a second or two away, with the page's clock stopped: nothing it
    // schedules runs until the test moves it.
    // A loaded machine may show "Checking now…" for a while first, so the bound is generous.
    await expect(signIn.nextCheck).toHaveText(/^Next check in [123] s$/, { timeout: (INTERVAL_SECONDS + 6) * 1000 });
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 1_000);
    const sessionRead = page.waitForResponse((response) => new URL(response.url()).pathname.endsWith("/api/provider/session"));
    await page.reload();
    const session = (await (await sessionRead).json()) as { status: string; nextCheckInMs: number };
    expect(session.status).toBe("pending");
    // Well under the interval, so the old scheduling (a whole interval after this answer) cannot pass below.
    expect(session.nextCheckInMs).toBeLessThanOrEqual(INTERVAL_SECONDS * 1000 - 500);
    await expect(signIn.nextCheck).toBeVisible();

    // The check goes out when the server said (old scheduling: one whole interval after the answer).
    const check = page.waitForRequest((request) => new URL(request.url()).pathname.endsWith("/api/provider/status"), { timeout: 5_000 });
    await page.clock.runFor(session.nextCheckInMs + 100);
    await check;

    // Back to real time: approved, the page signs in by itself.
    await page.clock.resume();
    expect(mock.approve(userCode, account)).toBe(true);
    await new ChatPage(page).expectSignedInAs(account.email);
    // The provider never had to say "too fast" (it enforces the interval here): upstream was polled at most once per interval.
    expect(mock.requests({ path: UPSTREAM_POLL_PATH }).filter((request) => request.status === 429)).toEqual([]);
  });
});
