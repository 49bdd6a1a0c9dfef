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
/** How late a check may land on a busy machine: well under the whole interval the old scheduling added. */
const LATENESS_ALLOWED_MS = 2_500;
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

  // Measures wall-clock gaps between checks, so a loaded machine fails it (seen at load 7-17: the first
  // check came later than interval + 4 s). The scheduling itself is tested over HTTP in
  // tests/integration/poll-timing.test.ts and lib/client/session-state.test.ts; this browser check needs
  // rewriting to wait on events instead of clocks before it runs in CI again.
  test.fixme("checks land when the provider may be asked again, also after a reload, and the first check after approval reaches the chat", async ({ page, account }) => {
    const signIn = new SignInPage(page);
    const statusChecks: number[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname.endsWith("/api/provider/status")) statusChecks.push(Date.now());
    });
    await page.goto(app.url);
    const userCode = await signIn.startSignIn();
    const pollsBefore = mock.requests({ path: UPSTREAM_POLL_PATH }).length;

    // The first check (one interval after the code), then reload while the next one is a second or two away.
    await expect.poll(() => mock.requests({ path: UPSTREAM_POLL_PATH }).length, { timeout: (INTERVAL_SECONDS + 4) * 1000 }).toBe(pollsBefore + 1);
    await expect(signIn.nextCheck).toHaveText(/^Next check in [12] s$/, { timeout: INTERVAL_SECONDS * 1000 });
    expect(mock.requests({ path: UPSTREAM_POLL_PATH }).length).toBe(pollsBefore + 1);
    const sessionRead = page.waitForResponse((response) => new URL(response.url()).pathname.endsWith("/api/provider/session"));
    await page.reload();
    const session = (await (await sessionRead).json()) as { status: string; nextCheckInMs?: number };
    const sessionAnsweredAt = Date.now();
    expect(session.status).toBe("pending");
    expect(session.nextCheckInMs).toBeGreaterThan(0);
    expect(session.nextCheckInMs).toBeLessThan(INTERVAL_SECONDS * 1000);

    // The reloaded page checks when the server says, not a whole interval after it read the session.
    const checksBeforeReloadCheck = statusChecks.length;
    await expect.poll(() => mock.requests({ path: UPSTREAM_POLL_PATH }).length, { timeout: INTERVAL_SECONDS * 1000 }).toBe(pollsBefore + 2);
    const reloadCheckAt = statusChecks[checksBeforeReloadCheck];
    expect(reloadCheckAt).toBeDefined();
    // Bounds with room for a loaded machine; the old scheduling came a whole interval late.
    expect(reloadCheckAt! - sessionAnsweredAt).toBeLessThan(session.nextCheckInMs! + LATENESS_ALLOWED_MS);

    // Approved now: the next check (one interval after the last poll) signs the page in.
    expect(mock.approve(userCode, account)).toBe(true);
    const checksAtApproval = statusChecks.length;
    await new ChatPage(page).expectSignedInAs(account.email);
    expect(statusChecks.length - checksAtApproval).toBe(1);

    // Upstream was asked at most once per interval, and never a whole extra interval late.
    const polls = mock.requests({ path: UPSTREAM_POLL_PATH }).slice(pollsBefore).map((request) => request.receivedAt);
    const gaps = polls.slice(1).map((at, index) => at - polls[index]!);
    expect(gaps.length).toBeGreaterThanOrEqual(2);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(INTERVAL_SECONDS * 1000 - 50);
      expect(gap).toBeLessThan(INTERVAL_SECONDS * 1000 + LATENESS_ALLOWED_MS);
    }
  });
});
