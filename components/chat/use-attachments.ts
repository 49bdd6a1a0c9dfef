"use client";

import { useState } from "react";
import type { FileUIPart } from "ai";
import { documentSteps, imageSteps, sortPicked } from "@/lib/client/attachment-plan";
import { readDocument } from "@/lib/client/document-attachments";
import { prepareImage } from "@/lib/client/image-attachments";
import type { DocumentChip } from "./document-chips";

export interface Attachments {
  /** Images for the next message, checked and shrunk. */
  images: { id: string; part: FileUIPart }[];
  /** Documents for the next message, read; and the names of those still being read. */
  documents: DocumentChip[];
  readingDocuments: string[];
  /** Why the last file could not be attached (or the message not sent), or null. */
  problem: string | null;
  setProblem: (problem: string | null) => void;
  /** Files picked, pasted or dropped: documents are read, images checked and shrunk (attachment-plan). */
  addFiles: (files: File[]) => Promise<void>;
  removeImage: (id: string) => void;
  removeDocument: (id: string) => void;
  /** The message went out with them. */
  clear: () => void;
}

/** The images and documents attached to the next message; problems are said before anything is sent. */
export function useAttachments(): Attachments {
  const [images, setImages] = useState<Attachments["images"]>([]);
  const [documents, setDocuments] = useState<DocumentChip[]>([]);
  const [readingDocuments, setReadingDocuments] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | null>(null);

  const addDocuments = async (files: File[]) => {
    for (const step of documentSteps(files, documents.length + readingDocuments.length)) {
      if (step.kind === "problem") {
        setProblem(step.message);
        continue;
      }
      const { file } = step;
      setReadingDocuments((current) => [...current, file.name]);
      try {
        const document = await readDocument(file);
        setDocuments((current) => [...current, { id: crypto.randomUUID(), document }]);
      } catch (caught) {
        setProblem(caught instanceof Error && caught.name === "DocumentProblem" ? caught.message : `“${file.name}” could not be read.`);
      } finally {
        setReadingDocuments((current) => current.filter((_, index) => index !== current.indexOf(file.name)));
      }
    }
  };

  const addFiles = async (picked: File[]) => {
    setProblem(null);
    const sorted = sortPicked(picked);
    if (sorted.documents.length > 0) void addDocuments(sorted.documents);
    for (const step of imageSteps(sorted.others, images.length)) {
      if (step.kind === "problem") {
        setProblem(step.message);
        continue;
      }
      try {
        const part = await prepareImage(step.file);
        setImages((current) => [...current, { id: crypto.randomUUID(), part }]);
      } catch (caught) {
        setProblem(caught instanceof Error ? caught.message : "The image could not be attached.");
      }
    }
  };

  return {
    images,
    documents,
    readingDocuments,
    problem,
    setProblem,
    addFiles,
    removeImage: (id) => setImages((current) => current.filter((image) => image.id !== id)),
    removeDocument: (id) => setDocuments((current) => current.filter((chip) => chip.id !== id)),
    clear: () => {
      setImages([]);
      setDocuments([]);
      setProblem(null);
    },
  };
}
