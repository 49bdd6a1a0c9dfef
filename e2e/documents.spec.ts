import { imageOnlyPdf, textPdf } from "../test-support/pdf-fixtures";
import { expect, test } from "./fixtures";
import { DocumentAttachments } from "./pages/documents";
import { userTextsOf } from "./support/recorded-input";

/** A string only PDF.js's code holds: its chunk has been loaded when a script contains it. */
const PDF_LIBRARY_MARKER = "Invalid PDF structure.";

/**
 * How long reading a PDF may take the first time: the browser downloads and compiles PDF.js (1.6 MB)
 * before it parses the file. Measured at about 20 s on a 2-core machine with two other suites running.
 */
const PDF_READ_TIMEOUT_MS = 60_000;

const NOTES = "# Trip notes\n\nDay 1: Lisbon, tram 28.\nDay 2: Sintra.\n";
const REPORT = textPdf([["Quarterly report", "Revenue grew by 12 percent."], ["Costs stayed flat."]]);

for (const width of [390, 1280]) {
  test.describe(`documents at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    test("a text file and a PDF are read in the browser and reach the model as quoted blocks with their names; PDF.js loads only for the PDF", async ({ page, signedInChat: chat, mock, account }) => {
      test.slow();
      const documents = new DocumentAttachments(page);
      await expect(documents.button).toBeVisible();
      expect(await documents.anyScriptContains(PDF_LIBRARY_MARKER)).toBe(false);

      await documents.attach({ name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from(NOTES) });
      await expect(documents.chip("notes.md")).toContainText("Text · ");
      // A text file needs no PDF library.
      expect(await documents.anyScriptContains(PDF_LIBRARY_MARKER)).toBe(false);

      await documents.attach({ name: "report.pdf", mimeType: "application/pdf", buffer: REPORT });
      await expect(documents.chip("report.pdf")).toContainText("PDF · 2 pages", { timeout: PDF_READ_TIMEOUT_MS });
      expect(await documents.anyScriptContains(PDF_LIBRARY_MARKER)).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

      await chat.input.fill("What do these say?");
      await chat.sendButton.click();
      await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");
      await expect(documents.pending).toHaveCount(0);

      // What the model was sent: each document as a quoted block with its name, then the question.
      const [request] = (await mock.responsesRequestsOf(account.accountId)).slice(-1);
      const sent = userTextsOf(request).at(-1) ?? "";
      expect(sent).toContain("Attached file “notes.md”:\n```\n# Trip notes\n\nDay 1: Lisbon, tram 28.\nDay 2: Sintra.\n```");
      expect(sent).toContain("Attached file “report.pdf”, PDF, 2 pages:\n```\nQuarterly report\nRevenue grew by 12 percent.\n\nCosts stayed flat.\n```");
      expect(sent.trim().endsWith("What do these say?")).toBe(true);

      // The sent message shows its documents, also after a reload (they are kept with the conversation).
      const sentMessage = chat.userMessages.last();
      await expect(documents.onMessage(sentMessage)).toHaveCount(2);
      await page.reload();
      await expect(documents.onMessage(chat.userMessages.last())).toHaveText([/notes\.md/, /report\.pdf/], { timeout: 30_000 });
    });
  });
}

test("a scanned PDF says it has no text, and limits on type, size and pages are explained; nothing is sent", async ({ page, signedInChat: chat, mock, account }) => {
  test.slow();
  const documents = new DocumentAttachments(page);

  await documents.attach({ name: "scan.pdf", mimeType: "application/pdf", buffer: imageOnlyPdf() });
  await expect(chat.attachError).toHaveText("“scan.pdf” has no text layer (it looks like a scan or images of pages), so there is no text to send.", {
    timeout: PDF_READ_TIMEOUT_MS,
  });

  const pages = Array.from({ length: 51 }, (_, index) => [`page ${index + 1}`]);
  await documents.attach({ name: "book.pdf", mimeType: "application/pdf", buffer: textPdf(pages) });
  await expect(chat.attachError).toHaveText("“book.pdf” has 51 pages; up to 50 pages can be attached.");

  await documents.attach({ name: "huge.csv", mimeType: "text/csv", buffer: Buffer.alloc(1024 * 1024 + 1, "a") });
  await expect(chat.attachError).toHaveText("“huge.csv” is too large (1.0 MB; the limit for a text file is 1 MB).");

  await documents.attach({ name: "slides.pptx", mimeType: "application/vnd.openxmlformats-officedocument.presentationml.presentation", buffer: Buffer.from("PK") });
  await expect(chat.attachError).toContainText("“slides.pptx” isn't an image or a document this app can read");

  await expect(documents.pending).toHaveCount(0);
  await expect(chat.sendButton).toBeDisabled();
  expect(await mock.responsesRequestsOf(account.accountId)).toHaveLength(0);
});
