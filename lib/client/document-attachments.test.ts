import { convertToModelMessages } from "ai";
import { describe, expect, it } from "vitest";
import { imageOnlyPdf, textPdf } from "@/test-support/pdf-fixtures";
import {
  DOCUMENT_LIMITS,
  documentAsModelText,
  documentDetail,
  documentFileProblem,
  documentKindOf,
  documentPart,
  documentsOf,
  documentToModelPart,
  readDocument,
  type AttachedDocument,
} from "./document-attachments";

function file(name: string, content: string | Uint8Array, type = ""): File {
  return new File([typeof content === "string" ? content : new Uint8Array(content)], name, { type });
}

async function problemOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (caught) {
    expect((caught as Error).name).toBe("DocumentProblem");
    return (caught as Error).message;
  }
  throw new Error("expected the document to be refused");
}

describe("documentKindOf", () => {
  it("knows text files by extension (whatever type the browser guessed), and PDFs", () => {
    expect(documentKindOf({ name: "notes.md", type: "" })).toBe("text");
    expect(documentKindOf({ name: "data.csv", type: "text/csv" })).toBe("text");
    expect(documentKindOf({ name: "config.json", type: "application/json" })).toBe("text");
    // Browsers call .ts files MPEG transport streams.
    expect(documentKindOf({ name: "app.ts", type: "video/mp2t" })).toBe("text");
    expect(documentKindOf({ name: "main.py", type: "text/x-python" })).toBe("text");
    expect(documentKindOf({ name: "Dockerfile", type: "" })).toBe("text");
    expect(documentKindOf({ name: "report.PDF", type: "" })).toBe("pdf");
    expect(documentKindOf({ name: "scan", type: "application/pdf" })).toBe("pdf");
  });

  it("is null for anything else", () => {
    expect(documentKindOf({ name: "photo.png", type: "image/png" })).toBeNull();
    expect(documentKindOf({ name: "archive.zip", type: "application/zip" })).toBeNull();
    expect(documentKindOf({ name: "slides.pptx", type: "" })).toBeNull();
  });
});

describe("documentFileProblem", () => {
  it("refuses other types and files over the size limits, with a reason", () => {
    expect(documentFileProblem({ name: "a.zip", type: "application/zip", size: 10 })).toMatch(/isn't an image or a document/);
    expect(documentFileProblem({ name: "big.txt", type: "text/plain", size: DOCUMENT_LIMITS.maxTextFileBytes + 1 })).toBe(
      "“big.txt” is too large (1.0 MB; the limit for a text file is 1 MB).",
    );
    expect(documentFileProblem({ name: "big.pdf", type: "application/pdf", size: 25 * 1024 * 1024 })).toBe(
      "“big.pdf” is too large (25.0 MB; the limit for a PDF is 20 MB).",
    );
    expect(documentFileProblem({ name: "ok.txt", type: "text/plain", size: 100 })).toBeNull();
  });
});

describe("readDocument: text files", () => {
  it("reads UTF-8 text, dropping a byte order mark and trailing blank lines", async () => {
    const read = await readDocument(file("notes.md", "\uFEFF# Plan\n\nDay 1: Lisbon ✓\n\n\n", "text/markdown"));
    expect(read).toEqual({ name: "notes.md", kind: "text", text: "# Plan\n\nDay 1: Lisbon ✓" });
  });

  it("refuses binary, non-UTF-8, empty and too long text", async () => {
    expect(await problemOf(readDocument(file("blob.txt", new Uint8Array([0x68, 0x00, 0x69]))))).toMatch(/binary/);
    expect(await problemOf(readDocument(file("latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9]))))).toMatch(/isn't UTF-8/);
    expect(await problemOf(readDocument(file("empty.txt", "  \n")))).toBe("“empty.txt” is empty.");
    const long = "a".repeat(DOCUMENT_LIMITS.maxChars + 1);
    expect(await problemOf(readDocument(file("long.txt", long)))).toBe("“long.txt” has 100,001 characters of text; up to 100,000 fit in a message.");
  });
});

describe("readDocument: PDFs", () => {
  it("extracts the text layer page by page, with the page count", async () => {
    const pdf = textPdf([["Quarterly report", "Revenue grew by 12 (twelve) percent."], ["Page two says hello."]]);
    const read = await readDocument(file("report.pdf", pdf, "application/pdf"));
    expect(read.kind).toBe("pdf");
    expect(read.pages).toBe(2);
    expect(read.text).toContain("Quarterly report");
    expect(read.text).toContain("Revenue grew by 12 (twelve) percent.");
    expect(read.text.indexOf("Page two says hello.")).toBeGreaterThan(read.text.indexOf("Revenue"));
  });

  it("says so when a PDF has no text layer (a scan) instead of sending nothing", async () => {
    expect(await problemOf(readDocument(file("scan.pdf", imageOnlyPdf(), "application/pdf")))).toBe(
      "“scan.pdf” has no text layer (it looks like a scan or images of pages), so there is no text to send.",
    );
  });

  it("refuses more pages than the limit before reading them, and files that are not PDFs", async () => {
    const pages = Array.from({ length: DOCUMENT_LIMITS.maxPdfPages + 1 }, (_, index) => [`page ${index + 1}`]);
    expect(await problemOf(readDocument(file("book.pdf", textPdf(pages), "application/pdf")))).toBe("“book.pdf” has 51 pages; up to 50 pages can be attached.");
    expect(await problemOf(readDocument(file("fake.pdf", "%PDF-1.4 not really", "application/pdf")))).toBe("“fake.pdf” could not be read as a PDF.");
  });
});

describe("documents in messages", () => {
  const notes: AttachedDocument = { name: "notes.md", kind: "text", text: "Use ``` fences:\n```js\nx\n```" };

  it("travel as data-document parts and are found again on the message", () => {
    const message = { id: "m1", role: "user" as const, parts: [documentPart(notes), { type: "text" as const, text: "summarise" }] };
    expect(documentsOf(message)).toEqual([notes]);
    expect(documentsOf({ id: "m2", role: "user", parts: [{ type: "data-document", data: { name: 1 } }] })).toEqual([]);
  });

  it("reach the model as a quoted block with the file's name that its own backticks cannot close", () => {
    const text = documentAsModelText(notes);
    expect(text).toBe("Attached file “notes.md”:\n````\nUse ``` fences:\n```js\nx\n```\n````");
    const pdf = documentAsModelText({ name: "r.pdf", kind: "pdf", pages: 2, text: "hello" });
    expect(pdf).toBe("Attached file “r.pdf”, PDF, 2 pages:\n```\nhello\n```");
  });

  it("are converted for the model in place: the quoted block, then the question", async () => {
    const messages = [{ id: "m1", role: "user" as const, parts: [documentPart(notes), { type: "text" as const, text: "summarise" }] }];
    const [message] = await convertToModelMessages(messages, { convertDataPart: documentToModelPart });
    expect(message).toEqual({
      role: "user",
      content: [
        { type: "text", text: documentAsModelText(notes) },
        { type: "text", text: "summarise" },
      ],
    });
  });

  it("describe themselves for a chip", () => {
    expect(documentDetail({ name: "r.pdf", kind: "pdf", pages: 1, text: "x" })).toBe("PDF · 1 page");
    expect(documentDetail({ name: "n.txt", kind: "text", text: "x".repeat(1204) })).toBe("Text · 1,204 characters");
  });
});
