import type { Page, Route } from "@playwright/test";
import { textPdf } from "../test-support/pdf-fixtures";
import { expect, test } from "./fixtures";
import { ChatPage } from "./pages/chat-page";
import { DocumentAttachments } from "./pages/documents";
import { VoicePage } from "./pages/voice-page";
import { expectedReply } from "./support/mock-replies";

const APP_SCRIPTS = "**/_next/static/chunks/**";

/**
 * From now on, every script of the build the page has not downloaded yet fails to download, as on
 * a dropped connection (what is already loaded keeps working). Returns the way back online.
 */
async function dropConnectionForNewScripts(page: Page): Promise<() => Promise<void>> {
  const fail = (route: Route) => route.abort("internetdisconnected");
  await page.route(APP_SCRIPTS, fail);
  return () => page.unroute(APP_SCRIPTS, fail);
}

test.describe("parts of the page loaded when first used", () => {
  test("the QR code's encoder failing to download says so in its place; the code and the link still work", async ({ page, signInPage }) => {
    await signInPage.goto();
    await expect(signInPage.signInButton).toBeEnabled();
    await dropConnectionForNewScripts(page);
    await signInPage.startSignIn();

    await expect(signInPage.qrCode).toHaveAttribute("data-failed", "true");
    await expect(signInPage.qrCode).toHaveText("QR code did not load");
    await expect(signInPage.userCode).toHaveText(/\S/);
    await expect(signInPage.verificationLink).toHaveAttribute("href", /^http/);
  });

  test("the chat's code failing to download says so, and Try again brings the chat once it can", async ({ page, signInPage, mock, account }) => {
    await signInPage.goto();
    await expect(signInPage.signInButton).toBeEnabled();
    const backOnline = await dropConnectionForNewScripts(page);
    await mock.approve(await signInPage.startSignIn(), account);

    const failure = page.getByTestId("load-failed");
    await expect(failure).toBeVisible({ timeout: 30_000 });
    await expect(failure).toContainText("The chat did not load");
    await backOnline();
    await failure.getByRole("button", { name: "Try again" }).click();
    await new ChatPage(page).expectSignedInAs(account.email);
  });

  test("the search's code failing to download says so in its dialog, and Try again opens the search", async ({ page, signedInChat: chat }) => {
    const backOnline = await dropConnectionForNewScripts(page);
    await chat.searchButton.click();

    const failure = page.getByTestId("load-failed");
    await expect(failure).toBeVisible();
    await expect(failure).toContainText("The search did not load");
    await backOnline();
    await failure.getByRole("button", { name: "Try again" }).click();
    await expect(chat.searchDialog).toBeVisible();
    await expect(chat.searchInput).toBeFocused();
  });

  test("voice's code failing to download says so in the voice dialog's place, and Try again opens voice", async ({ page, signedInChat: chat }) => {
    const voice = new VoicePage(page);
    const backOnline = await dropConnectionForNewScripts(page);
    await voice.openButton.click();

    const failure = page.getByTestId("load-failed");
    await expect(failure).toBeVisible();
    await expect(failure).toContainText("Voice did not load");
    await expect(failure.getByRole("button", { name: "Try again" })).toBeFocused();
    await backOnline();
    await failure.getByRole("button", { name: "Try again" }).click();
    await expect(voice.dialog).toBeVisible();
    await expect(voice.startButton).toBeFocused();
    await expect(chat.input).toBeVisible();
  });

  test("Close on a failed download closes the stand-in and gives the focus back", async ({ page, signedInChat: chat }) => {
    await dropConnectionForNewScripts(page);
    await chat.searchButton.click();
    const standIn = page.getByTestId("on-demand-dialog");
    await expect(standIn.getByTestId("load-failed")).toBeVisible();
    await standIn.getByRole("button", { name: "Close" }).click();
    await expect(standIn).toHaveCount(0);
    await expect(chat.searchButton).toBeFocused();
  });

  test("the maths renderer failing to download leaves the answer's maths as written, says so, and Try again renders it", async ({ page, signedInChat: chat }) => {
    // A first answer without maths: the chat's own code for sending is here before the drop.
    await chat.sendAndWaitForReply("Hello", expectedReply("Hello"));
    const backOnline = await dropConnectionForNewScripts(page);
    await chat.sendAndWaitForReply("Inline $x^2$ here", "here");

    const answer = chat.lastAssistantMessage().getByTestId("answer-text");
    const failure = answer.getByTestId("load-failed");
    await expect(failure).toContainText("The maths did not load");
    await expect(answer).toContainText("x^2");
    await expect(answer.locator(".katex")).toHaveCount(0);
    // Unlike a dialog's, this alert does not take the focus: the person may be typing.
    await expect(failure.getByRole("button", { name: "Try again" })).not.toBeFocused();
    await backOnline();
    await failure.getByRole("button", { name: "Try again" }).click();
    await expect(answer.locator(".katex")).toHaveCount(1);
    await expect(failure).toHaveCount(0);
    // The folded reasoning summary, which holds the same maths, renders it too.
    await chat.lastAssistantMessage().getByTestId("reasoning-summary").locator("summary").click();
    await expect(chat.lastAssistantMessage().getByTestId("reasoning-summary").locator(".katex")).toHaveCount(1);
    await expect(chat.lastAssistantMessage().getByTestId("load-failed")).toHaveCount(0);
  });

  test("the chat's model code failing to download at the first message is a connection problem, and Retry sends the message", async ({ page, signedInChat: chat, mock, account }) => {
    const backOnline = await dropConnectionForNewScripts(page);
    await chat.send("Hello there");

    await expect(chat.error).toHaveAttribute("data-error-code", "network_error");
    await expect(chat.error).toContainText("Check your connection");
    expect(await mock.responsesRequestsOf(account.accountId)).toHaveLength(0);
    await backOnline();
    await chat.retryTurnButton.click();
    await expect(chat.lastAssistantMessage()).toContainText(expectedReply("Hello there"));
    await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");
    await expect(chat.failedUserMessages).toHaveCount(0);
  });

  test("export and import code failing to download says so under the list, and the next try works", async ({ page, signedInChat: chat }) => {
    await chat.sendAndWaitForReply("Keep this", expectedReply("Keep this"));
    const backOnline = await dropConnectionForNewScripts(page);

    await chat.exportAllButton.click();
    await expect(chat.importError).toHaveText("Nothing was exported: its code could not be downloaded (the connection may have dropped). Try again.");
    await chat.importInput.setInputFiles({ name: "backup.json", mimeType: "application/json", buffer: Buffer.from("{}") });
    await expect(chat.importError).toHaveText("Nothing was imported: its code could not be downloaded (the connection may have dropped). Try again.");

    await backOnline();
    const backup = await chat.download(() => chat.exportAllButton.click());
    expect(JSON.parse(backup.text)).toMatchObject({ format: "lwc-chat-backup" });
    await expect(chat.importError).toHaveCount(0);
  });

  test("the PDF reader failing to download says so, and attaching the PDF again reads it", async ({ page, signedInChat: chat }) => {
    test.slow(); // PDF.js is 1.6 MB to download and compile on a busy machine
    const documents = new DocumentAttachments(page);
    const report = { name: "report.pdf", mimeType: "application/pdf", buffer: textPdf([["Quarterly report"]]) };
    const backOnline = await dropConnectionForNewScripts(page);
    await documents.attach(report);
    await expect(chat.attachError).toHaveText("The PDF reader could not be downloaded (the connection may have dropped), so “report.pdf” was not attached. Try again.");

    await backOnline();
    await documents.input.setInputFiles([]);
    await documents.attach(report);
    await expect(documents.chip("report.pdf")).toContainText("PDF · 1 page", { timeout: 60_000 });
  });
});
