import { expect, test } from "./fixtures";

const CODE_LIFETIME_MS = 15 * 60_000;

function secondsOf(countdown: string): number {
  const [minutes, seconds] = countdown.trim().split(":").map(Number);
  return minutes! * 60 + seconds!;
}

test("a fresh code's countdown never shows more than its 15 minutes, even when issued late in a second", async ({ page, signInPage }) => {
  // A browser clock that stands still: the countdown keeps what the login reply made it, instead of
  // a later tick correcting it before it can be read.
  await page.clock.setFixedTime(Date.now());
  await signInPage.goto();

  // The browser estimates the server's clock from the reply's Date header (whole seconds) as the
  // middle of that second; a code issued in the second half of it is where the count started at 15:01.
  let issuedLate = 0;
  for (let attempt = 0; attempt < 16 && issuedLate < 2; attempt++) {
    const loginReply = page.waitForResponse((response) => response.request().method() === "POST" && new URL(response.url()).pathname.endsWith("/login"));
    await signInPage.signInButton.click();
    const reply = await loginReply;
    const { expiresAt } = (await reply.json()) as { expiresAt: number };
    const serverSecond = Date.parse(reply.headers()["date"] ?? "");
    await expect(signInPage.countdown).toBeVisible();
    const shown = secondsOf(await signInPage.countdown.innerText());
    expect(shown, `attempt ${attempt}`).toBeLessThanOrEqual(15 * 60);
    expect(shown, `attempt ${attempt}`).toBeGreaterThanOrEqual(15 * 60 - 5);
    if (expiresAt - CODE_LIFETIME_MS - serverSecond > 500) issuedLate += 1;

    await page.getByRole("button", { name: "Cancel" }).click();
    await expect(signInPage.signInButton).toBeVisible();
  }
  expect(issuedLate, "codes issued in the second half of their Date second (where the old count showed 15:01)").toBeGreaterThan(0);
});
