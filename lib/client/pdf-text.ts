import { getDocumentProxy } from "unpdf";
import { checkPageCount, DocumentProblem } from "./document-attachments";

/**
 * The text of a PDF, page by page (PDF.js through unpdf, whose build needs no worker file and no
 * eval, so it runs under the page's CSP). Loaded with `import()` only when a PDF is attached. The
 * page count is checked before any page is read. Throws DocumentProblem.
 */
export async function extractPdfText(name: string, bytes: Uint8Array): Promise<{ text: string; pages: number }> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(bytes);
  } catch (caught) {
    if (caught instanceof Error && caught.name === "PasswordException") {
      throw new DocumentProblem(`“${name}” is protected by a password, so its text can't be read.`);
    }
    throw new DocumentProblem(`“${name}” could not be read as a PDF.`);
  }
  try {
    checkPageCount(name, pdf.numPages);
    const pages: string[] = [];
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      let text = "";
      for (const item of content.items) {
        if (!("str" in item)) continue;
        text += item.str + (item.hasEOL ? "\n" : "");
      }
      pages.push(text.trim());
      page.cleanup();
    }
    return { text: pages.filter((page) => page !== "").join("\n\n"), pages: pdf.numPages };
  } finally {
    // Frees the parsed document (the loading task owns it).
    await pdf.loadingTask.destroy();
  }
}
