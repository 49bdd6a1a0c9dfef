"use client";

import { documentDetail, type AttachedDocument } from "@/lib/client/document-attachments";
import { iconButton } from "../ui/button-styles";
import { FilePicker } from "../ui/file-picker";
import { Icon, XIcon, type IconProps } from "../ui/icons";
import { WaitingIndicator } from "../ui/waiting-indicator";

const PaperclipIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="m20 11.5-8.3 8.3a5 5 0 0 1-7.1-7.1l8.5-8.5a3.3 3.3 0 0 1 4.7 4.7l-8.5 8.5a1.7 1.7 0 0 1-2.4-2.4l7.8-7.8" />
  </Icon>
);

const FileTextIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8Z" />
    <path d="M14 3v5h5M9 13h6M9 17h6" />
  </Icon>
);

export interface DocumentChip {
  id: string;
  document: AttachedDocument;
}

/** One attached document: its name and what it holds ("PDF · 3 pages"). */
function Chip({ document, children }: { document: AttachedDocument; children?: React.ReactNode }) {
  return (
    <li data-testid="document-attachment" className="flex max-w-full min-w-0 items-center gap-2 rounded-xl border border-border bg-card py-1.5 pr-1.5 pl-2.5 text-foreground">
      <FileTextIcon className="size-4 shrink-0 text-muted-foreground" />
      <span className="flex min-w-0 flex-col leading-tight">
        <span data-testid="document-name" className="truncate text-[13px] font-medium" title={document.name}>
          {document.name}
        </span>
        <span data-testid="document-detail" className="text-[11px] text-muted-foreground">
          {documentDetail(document)}
        </span>
      </span>
      {children}
    </li>
  );
}

/** Documents attached to the next message (removable) and those still being read. */
export function ComposerDocuments({ documents, reading, onRemove }: { documents: DocumentChip[]; reading: string[]; onRemove: (id: string) => void }) {
  if (documents.length === 0 && reading.length === 0) return null;
  return (
    <ul aria-label="Attached documents" className="flex flex-wrap gap-2 px-3 pt-3">
      {documents.map(({ id, document }) => (
        <Chip key={id} document={document}>
          <button
            type="button"
            data-testid="remove-document"
            onClick={() => onRemove(id)}
            aria-label={`Remove ${document.name}`}
            className={`${iconButton} size-7 shrink-0`}
          >
            <XIcon className="size-3.5" />
          </button>
        </Chip>
      ))}
      {reading.map((name, index) => (
        <li key={`${name}-${index}`} data-testid="document-reading" className="flex items-center gap-2 rounded-xl border border-dashed border-border px-2.5 py-2 text-[13px] text-muted-foreground">
          <WaitingIndicator />
          <span className="max-w-[12rem] truncate">Reading {name}…</span>
        </li>
      ))}
    </ul>
  );
}

/** Documents that went with a sent message. */
export function MessageDocuments({ documents }: { documents: AttachedDocument[] }) {
  if (documents.length === 0) return null;
  return (
    <ul aria-label="Attached documents" className="flex max-w-full flex-wrap justify-end gap-2">
      {documents.map((document, index) => (
        <Chip key={index} document={document} />
      ))}
    </ul>
  );
}

/** The paperclip: attach text files and PDFs (any model reads their text). */
export function AttachDocumentButton({ onAddFiles }: { onAddFiles: (files: File[]) => void }) {
  return (
    <FilePicker
      accept=".pdf,application/pdf,.txt,.md,.markdown,.csv,.tsv,.json,.xml,.yaml,.yml,.html,.css,.js,.jsx,.ts,.tsx,.py,.rb,.go,.rs,.java,.kt,.c,.h,.cpp,.cs,.php,.swift,.sh,.sql,text/*"
      multiple
      onFiles={onAddFiles}
      inputTestId="attach-document-input"
      data-testid="attach-document-button"
      aria-label="Attach documents"
      title="Attach text files or PDFs (or drop them here)"
      className={`${iconButton} size-8 shrink-0`}
    >
      <PaperclipIcon className="size-4" />
    </FilePicker>
  );
}
