"use client";

import { DownloadIcon, UploadIcon } from "./conversation-icons";
import { FilePicker } from "../ui/file-picker";
import { XIcon } from "../ui/icons";
import type { FileNotice } from "./use-conversation-files";

interface ConversationFileToolsProps {
  onExportAll: () => void;
  onImport: (file: File) => void;
  notice: FileNotice | null;
  onDismissNotice: () => void;
  /** False while there is nothing to export. */
  canExport: boolean;
}

const toolButton =
  "inline-flex h-8 flex-1 items-center justify-center gap-1.5 rounded-lg text-[13px] text-muted-foreground hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-50";

/** Export all (one JSON backup) and Import (a backup or one conversation), under the conversation list. */
export function ConversationFileTools({ onExportAll, onImport, notice, onDismissNotice, canExport }: ConversationFileToolsProps) {
  return (
    <div className="border-t border-border px-2 py-1.5">
      <div className="flex gap-1">
        <button type="button" data-testid="export-all-button" onClick={onExportAll} disabled={!canExport} className={toolButton}>
          <DownloadIcon className="size-3.5" />
          Export all
        </button>
        <FilePicker
          accept=".json,application/json"
          onFiles={([file]) => onImport(file!)}
          inputTestId="import-input"
          inputLabel="Import conversations from a file"
          data-testid="import-button"
          className={toolButton}
        >
          <UploadIcon className="size-3.5" />
          Import
        </FilePicker>
      </div>
      {notice?.kind === "status" && (
        <p role="status" data-testid="import-status" className="px-2 py-1 text-[12px] leading-4 text-muted-foreground">
          {notice.text}
        </p>
      )}
      {notice?.kind === "error" && (
        <div role="alert" className="mt-1 flex items-start gap-1 rounded-lg bg-destructive-soft px-2 py-1.5 text-[12px] leading-4 text-foreground">
          <p data-testid="import-error" className="flex-1">
            {notice.text}
          </p>
          <button type="button" onClick={onDismissNotice} aria-label="Dismiss" className="rounded p-0.5 text-muted-foreground hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring">
            <XIcon className="size-3.5" />
          </button>
        </div>
      )}
    </div>
  );
}
