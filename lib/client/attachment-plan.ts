import { DOCUMENT_LIMITS, documentKindOf, unsupportedFileProblem } from "./document-attachments";
import { IMAGE_LIMITS, imageFileProblem } from "./image-attachments";

/**
 * What to do with files picked, pasted or dropped into the message box, worked out before any is
 * read: text files and PDFs are read as documents, images checked and shrunk, anything else
 * refused; past the per-message limit, one sentence says so and the rest are left out. The steps
 * run in order (useAttachments), so the problem shown last is the one a person reads.
 */
type AttachmentStep<F> = { kind: "read-document"; file: F } | { kind: "prepare-image"; file: F } | { kind: "problem"; message: string };

interface PickedFile {
  name: string;
  type: string;
  size: number;
}

/** The picked files that are documents this app reads, and the others (images, or refused). */
export function sortPicked<F extends PickedFile>(files: readonly F[]): { documents: F[]; others: F[] } {
  return {
    documents: files.filter((file) => documentKindOf(file) !== null),
    others: files.filter((file) => documentKindOf(file) === null),
  };
}

/** Documents, read one after the other while the message has room (`held`: attached or being read). */
export function documentSteps<F extends PickedFile>(files: readonly F[], held: number): AttachmentStep<F>[] {
  const steps: AttachmentStep<F>[] = [];
  let room = DOCUMENT_LIMITS.maxDocuments - held;
  for (const file of files) {
    if (room <= 0) {
      steps.push({ kind: "problem", message: `Up to ${DOCUMENT_LIMITS.maxDocuments} documents per message.` });
      break;
    }
    room -= 1;
    steps.push({ kind: "read-document", file });
  }
  return steps;
}

/** Images (the other files): each checked, then shrunk while the message has room (`attached` already). */
export function imageSteps<F extends PickedFile>(files: readonly F[], attached: number): AttachmentStep<F>[] {
  const steps: AttachmentStep<F>[] = [];
  let room = IMAGE_LIMITS.maxImages - attached;
  for (const file of files) {
    const problem = file.type.startsWith("image/") ? imageFileProblem(file) : unsupportedFileProblem(file.name);
    if (problem) {
      steps.push({ kind: "problem", message: problem });
      continue;
    }
    if (room <= 0) {
      steps.push({ kind: "problem", message: `Up to ${IMAGE_LIMITS.maxImages} images per message.` });
      break;
    }
    room -= 1;
    steps.push({ kind: "prepare-image", file });
  }
  return steps;
}
