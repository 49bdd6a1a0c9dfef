import type { UIMessage } from "ai";

/**
 * Documents attached to a message: text files and PDFs. Their text is read in the browser (PDFs with
 * PDF.js, loaded only when a PDF is attached) and travels with the message as a `data-document`
 * part: shown as a chip in the conversation, sent to the model as a quoted block with the file's
 * name (documentAsModelText). Nothing but that text leaves the browser.
 *
 * Limits, each refused with a message before anything is sent:
 * - text files up to 1 MB, PDFs up to 20 MB and 50 pages;
 * - at most 100,000 characters of text per document (about 25,000 tokens);
 * - at most 3 documents per message;
 * - a PDF without a text layer (a scan) is refused: there is no text to send.
 */
export const DOCUMENT_LIMITS = {
  maxTextFileBytes: 1024 * 1024,
  maxPdfBytes: 20 * 1024 * 1024,
  maxPdfPages: 50,
  maxChars: 100_000,
  maxDocuments: 3,
} as const;

type DocumentKind = "text" | "pdf";

export interface AttachedDocument {
  name: string;
  kind: DocumentKind;
  text: string;
  /** PDFs: the page count. */
  pages?: number;
}

/** The message part a document travels in. */
export const DOCUMENT_PART_TYPE = "data-document";

interface DocumentPart {
  type: typeof DOCUMENT_PART_TYPE;
  data: AttachedDocument;
}

/** A problem with a document, worded for the person; the file is not attached. */
export class DocumentProblem extends Error {
  override name = "DocumentProblem";
}

/** Names of text files by extension: prose, data and source code. */
const TEXT_EXTENSIONS = new Set(
  (
    "txt text md markdown mdx rst adoc org tex log csv tsv json jsonl ndjson xml yaml yml toml ini cfg conf env properties " +
    "html htm css scss sass less svg js mjs cjs jsx ts mts cts tsx vue svelte astro py pyi rb go rs java kt kts scala groovy " +
    "c h cc cpp cxx hpp hh m mm cs fs swift dart php pl pm lua r jl ex exs erl hs ml clj sql graphql gql proto " +
    "sh bash zsh fish ps1 bat cmd dockerfile makefile cmake gradle tf hcl nix diff patch"
  ).split(" "),
);
/** Whole file names that are text without an extension. */
const TEXT_NAMES = new Set(["dockerfile", "makefile", "license", "readme", "gemfile", "procfile"]);

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/** What kind of document a file is, or null when it is not one this app reads. */
export function documentKindOf(file: { name: string; type: string }): DocumentKind | null {
  const extension = extensionOf(file.name);
  if (file.type === "application/pdf" || extension === "pdf") return "pdf";
  if (TEXT_EXTENSIONS.has(extension) || TEXT_NAMES.has(file.name.toLowerCase())) return "text";
  if (file.type.startsWith("text/") || file.type === "application/json") return "text";
  return null;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** For a file that is neither an image nor a document this app reads. */
export function unsupportedFileProblem(name: string): string {
  return `“${name}” isn't an image or a document this app can read. Attach images (PNG, JPEG, WebP, GIF), text files (.txt, .md, .csv, .json, source code) or PDFs.`;
}

/** Why a document cannot be attached before reading it (type, size), or null. */
export function documentFileProblem(file: { name: string; type: string; size: number }): string | null {
  const kind = documentKindOf(file);
  if (!kind) return unsupportedFileProblem(file.name);
  const limit = kind === "pdf" ? DOCUMENT_LIMITS.maxPdfBytes : DOCUMENT_LIMITS.maxTextFileBytes;
  if (file.size > limit) {
    return `“${file.name}” is too large (${megabytes(file.size)}; the limit for ${kind === "pdf" ? "a PDF" : "a text file"} is ${megabytes(limit).replace(".0", "")}).`;
  }
  return null;
}

/** A PDF's page count against the limit; throws the person-facing problem when it has too many. */
export function checkPageCount(name: string, pages: number): void {
  if (pages > DOCUMENT_LIMITS.maxPdfPages) {
    throw new DocumentProblem(`“${name}” has ${pages} pages; up to ${DOCUMENT_LIMITS.maxPdfPages} pages can be attached.`);
  }
}

/** The text of a text file: UTF-8 (a byte order mark is dropped); binary or other encodings are refused. */
function decodeTextFile(name: string, bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new DocumentProblem(`“${name}” isn't UTF-8 text, so it can't be read.`);
  }
  if (text.includes("\u0000")) throw new DocumentProblem(`“${name}” looks like a binary file, not text.`);
  return text;
}

/** The document's text checked against the limits: trailing space trimmed, not empty, not too long. */
function checkDocumentText(name: string, kind: DocumentKind, text: string): string {
  const trimmed = text.replace(/\s+$/, "");
  if (trimmed.trim() === "") {
    throw new DocumentProblem(
      kind === "pdf"
        ? `“${name}” has no text layer (it looks like a scan or images of pages), so there is no text to send.`
        : `“${name}” is empty.`,
    );
  }
  if (trimmed.length > DOCUMENT_LIMITS.maxChars) {
    throw new DocumentProblem(
      `“${name}” has ${trimmed.length.toLocaleString("en-US")} characters of text; up to ${DOCUMENT_LIMITS.maxChars.toLocaleString("en-US")} fit in a message.`,
    );
  }
  return trimmed;
}

/** Reads a file as a document: its text, checked against the limits. Throws DocumentProblem. */
export async function readDocument(file: File): Promise<AttachedDocument> {
  const problem = documentFileProblem(file);
  if (problem) throw new DocumentProblem(problem);
  const kind = documentKindOf(file)!;
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (kind === "text") return { name: file.name, kind, text: checkDocumentText(file.name, kind, decodeTextFile(file.name, bytes)) };
  // PDF.js is large: it is loaded only now, when a PDF is attached.
  const { extractPdfText } = await import("./pdf-text").catch(() => {
    throw new DocumentProblem(`The PDF reader could not be downloaded (the connection may have dropped), so “${file.name}” was not attached. Try again.`);
  });
  const { text, pages } = await extractPdfText(file.name, bytes);
  return { name: file.name, kind, pages, text: checkDocumentText(file.name, kind, text) };
}

export function documentPart(document: AttachedDocument): DocumentPart {
  return { type: DOCUMENT_PART_TYPE, data: document };
}

function isAttachedDocument(value: unknown): value is AttachedDocument {
  if (typeof value !== "object" || value === null) return false;
  const { name, kind, text } = value as Partial<AttachedDocument>;
  return typeof name === "string" && (kind === "text" || kind === "pdf") && typeof text === "string";
}

/** A message part that is a document, as its document; undefined for anything else. */
function documentOfPart(part: { type: string; data?: unknown }): AttachedDocument | undefined {
  return part.type === DOCUMENT_PART_TYPE && isAttachedDocument(part.data) ? part.data : undefined;
}

/** The documents attached to a message, in order. */
export function documentsOf(message: UIMessage): AttachedDocument[] {
  return message.parts.flatMap((part) => {
    const document = documentOfPart(part as { type: string; data?: unknown });
    return document ? [document] : [];
  });
}

/** "PDF · 3 pages" or "Text · 1,204 characters": what a chip says under the name. */
export function documentDetail(document: AttachedDocument): string {
  if (document.kind === "pdf") return `PDF · ${document.pages ?? "?"} ${document.pages === 1 ? "page" : "pages"}`;
  return `Text · ${document.text.length.toLocaleString("en-US")} characters`;
}

/**
 * The document as the model reads it: a line naming the file, then its text in a fenced block whose
 * fence is longer than any run of backticks inside, so the text cannot end the block early.
 */
export function documentAsModelText(document: AttachedDocument): string {
  const longestRun = Math.max(0, ...(document.text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  const pages = document.kind === "pdf" && document.pages ? `, PDF, ${document.pages} ${document.pages === 1 ? "page" : "pages"}` : "";
  return `Attached file “${document.name}”${pages}:\n${fence}\n${document.text}\n${fence}`;
}

/** For convertToModelMessages: a document part becomes its quoted text; other data parts stay in the browser. */
export function documentToModelPart(part: { type: string; data?: unknown }): { type: "text"; text: string } | undefined {
  const document = documentOfPart(part);
  return document ? { type: "text", text: documentAsModelText(document) } : undefined;
}
