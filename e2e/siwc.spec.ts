import { z } from "zod";
import type { NextServer } from "../test-support/next-server";
import { expect, test } from "./fixtures";
import { ChatPage } from "./pages/chat-page";
import { seriousAccessibilityViolations } from "./support/axe";
import { startExtraApp } from "./support/extra-app";
import { expectedReply } from "./support/mock-replies";
import { MOCK_UPSTREAM_URL } from "./support/servers";

/**
 * Sign in with ChatGPT (docs/siwc.md) in Chromium against the mock's SIWC side. Each test gets its
 * own app server (a fresh in-memory store), so its first Continue with ChatGPT is the person's first
 * registration whatever ran before; the app listens on 127.0.0.1, where the loopback callback lands.
 */
function startSiwcApp(): Promise<NextServer> {
  return startExtraApp({
    LWC_SIGN_IN: "device,siwc",
    LWC_SIWC_ISSUER: `${MOCK_UPSTREAM_URL}/siwc`,
    LWC_SIWC_API_BASE: `${MOCK_UPSTREAM_URL}/siwc/v1`,
  });
}

const siwcStateSchema = z.object({
  state: z
    .object({
      accounts: z.array(z.object({ sub: z.string(), email: z.string() }).loose()),
      registrations: z.array(z.object({ clientId: z.string(), sub: z.string() }).loose()),
      families: z.array(z.object({ clientId: z.string(), ended: z.string().nullable() }).loose()),
      authorizations: z.array(
        z.object({ clientId: z.string(), newRegistration: z.boolean(), consentShown: z.boolean(), outcome: z.string(), prompt: z.string().nullable() }).loose(),
      ),
    })
    .loose(),
});

/** The mock's SIWC state (registrations, refresh families, the authorize log), from its control API. */
async function siwcState() {
  const reply = await fetch(`${MOCK_UPSTREAM_URL}/__mock/siwc/state`);
  expect(reply.ok).toBe(true);
  return siwcStateSchema.parse(await reply.json()).state;
}

/** The registration the mock issued for this email (exactly one). */
async function registrationOf(email: string) {
  const state = await siwcState();
  const sub = state.accounts.find((account) => account.email === email)?.sub;
  const registrations = state.registrations.filter((registration) => registration.sub === sub);
  expect(registrations).toHaveLength(1);
  return registrations[0]!;
}

let app: NextServer | undefined;
test.afterEach(async () => {
  await app?.stop();
  app = undefined;
});

test("Continue with ChatGPT: approve on ChatGPT's page, the plan notice once, a streamed reply, sign-out revokes, the next sign-in reuses the issued client id", async ({ page, account }) => {
  test.slow(); // a server of its own, two sign-ins and a reply
  app = await startSiwcApp();
  const chat = new ChatPage(page);
  const continueButton = page.getByTestId("continue-with-chatgpt");
  const notice = page.getByTestId("plan-notice");
  const indicator = page.getByTestId("plan-usage-indicator");

  await page.goto(app.url);
  await expect(continueButton).toHaveText("Continue with ChatGPT");
  await expect(page.getByTestId("sign-in-button")).toHaveText("Sign in with a one-time code");
  expect(await seriousAccessibilityViolations(page)).toEqual([]);

  // The button navigates the page itself: to the start route, then to the mock's consent page (a new registration).
  await continueButton.click();
  await expect(page.getByTestId("siwc-approve")).toBeVisible();
  expect(new URL(page.url()).origin).toBe(MOCK_UPSTREAM_URL);
  await page.getByTestId("siwc-email").fill(account.email);
  await page.getByTestId("siwc-approve").click();

  await chat.expectSignedInAs(account.email);
  expect(new URL(page.url()).origin).toBe(app.url);
  expect(page.url()).not.toContain("signin_error");
  await expect(notice).toBeVisible();
  await expect(notice).toContainText("You're using your ChatGPT plan");
  await expect(notice).toContainText("Eligible usage in this app uses your ChatGPT plan. Manage usage in your ChatGPT settings.");
  await expect(page.getByTestId("plan-notice-dismiss")).toBeFocused();
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  const noticeSeen = page.waitForResponse((response) => response.request().method() === "POST" && response.url().endsWith("/siwc/notice"));
  await page.getByTestId("plan-notice-dismiss").click();
  expect((await noticeSeen).status()).toBe(204);
  await expect(notice).toBeHidden();

  await expect(indicator).toContainText("Using ChatGPT plan");
  await expect(page.getByTestId("manage-usage-link")).toHaveAttribute("href", "https://chatgpt.com/settings/usage");
  // No voice, agent voice or pictures with this sign-in, and one line says so.
  await expect(page.getByTestId("voice-button")).toHaveCount(0);
  await expect(page.getByTestId("image-toggle")).toHaveCount(0);
  await expect(page.getByTestId("chat-footnote")).toContainText("Voice, agent voice and pictures aren't available");

  // Not again after a reload.
  await page.reload();
  await chat.expectSignedInAs(account.email);
  await expect(indicator).toBeVisible();
  await expect(notice).toBeHidden();

  const message = "hello through Sign in with ChatGPT";
  await chat.sendAndWaitForReply(message, expectedReply(message));

  const { clientId } = await registrationOf(account.email);
  expect(clientId).toMatch(/^oaiapp_/);

  // Signing out revokes the refresh token at the mock: every family of this client ended as revoked.
  await chat.signOut();
  await expect(continueButton).toBeVisible();
  await expect(page.getByTestId("revocation-unconfirmed")).toHaveCount(0);
  const families = (await siwcState()).families.filter((family) => family.clientId === clientId);
  expect(families.length).toBeGreaterThan(0);
  expect(families.map((family) => family.ended)).toEqual(families.map(() => "revoked"));

  // Back again: the mock is asked with the issued client id (its account chooser, not a new registration's consent).
  await continueButton.click();
  await expect(page.getByTestId("siwc-account")).toHaveText(account.email);
  await page.getByTestId("siwc-approve").click();
  await chat.expectSignedInAs(account.email);
  await expect(indicator).toBeVisible();
  await expect(notice).toBeHidden();

  const state = await siwcState();
  const returning = state.authorizations.filter((entry) => entry.clientId === clientId);
  expect(returning).toEqual([expect.objectContaining({ newRegistration: false, consentShown: false, outcome: "approved" })]);
  expect(state.registrations.filter((registration) => registration.clientId === clientId)).toHaveLength(1);
});

test.describe("dark theme", () => {
  test.use({ colorScheme: "dark" });

  test("Decline says so and leaves the address clean; Identity only signs in with chat off; Enable plan usage asks again and the notice follows", async ({ page, account }) => {
    test.slow();
    app = await startSiwcApp();
    const chat = new ChatPage(page);
    const continueButton = page.getByTestId("continue-with-chatgpt");

    await page.goto(app.url);
    await continueButton.click();
    await page.getByTestId("siwc-email").fill(account.email);
    await page.getByTestId("siwc-decline").click();

    const signInError = page.getByTestId("signin-error");
    await expect(signInError).toHaveAttribute("data-error-code", "siwc_access_denied");
    await expect(signInError).toContainText("You declined on ChatGPT's page");
    expect(page.url()).not.toContain("signin_error");
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    // A reload does not say it again: the code left the address.
    await page.reload();
    await expect(continueButton).toBeVisible();
    await expect(signInError).toHaveCount(0);

    // Identity only: signed in, but nothing can be sent, and the way to change that is right there.
    await continueButton.click();
    await page.getByTestId("siwc-email").fill(account.email);
    await page.getByTestId("siwc-identity-only").click();
    await expect(page.getByTestId("signed-in-email")).toHaveText(account.email, { timeout: 30_000 });
    const planOff = page.getByTestId("plan-usage-off");
    await expect(planOff).toContainText("Chat is off");
    await expect(chat.input).toHaveAttribute("placeholder", "Chat is off until plan usage is enabled");
    await expect(page.getByTestId("plan-notice")).toBeHidden();
    await expect(page.getByTestId("plan-usage-indicator")).toHaveCount(0);
    await expect(page.getByTestId("models-error")).toHaveCount(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await page.getByTestId("enable-plan-usage").click();
    await expect(page.getByTestId("siwc-approve")).toBeVisible();
    await page.getByTestId("siwc-approve").click();
    await chat.expectSignedInAs(account.email);
    await expect(page.getByTestId("plan-notice")).toBeVisible();
    await page.getByTestId("plan-notice-dismiss").click();
    await expect(page.getByTestId("plan-usage-indicator")).toBeVisible();
    await expect(planOff).toHaveCount(0);

    const { clientId } = await registrationOf(account.email);
    const asked = (await siwcState()).authorizations.filter((entry) => entry.clientId === clientId);
    expect(asked).toEqual([expect.objectContaining({ prompt: "consent", consentShown: true, outcome: "approved" })]);
    const message = "plan usage on now";
    await chat.sendAndWaitForReply(message, expectedReply(message));
  });
});
