"use client";

import { useRef } from "react";
import { ghostButton, secondaryButton } from "../ui/button-styles";
import { ModalDialog } from "../ui/modal-dialog";
import { DeleteHistorySection } from "./delete-history-section";
import { whereChatsAre } from "./history-notice";
import { InstructionsSection } from "./instructions-section";
import { SharesSection } from "./shares-section";
import type { HistorySync } from "./use-history-sync";

interface HistorySettingsDialogProps {
  history: HistorySync;
  /** The server keeps chats (the session says `history: "server"`): what it offers then. */
  serverHistory: boolean;
  /** The browser agreed to keep this site's storage; null: not known. */
  persisted: boolean | null;
  titleOf: (conversationId: string) => string;
  onClose: () => void;
}

/**
 * Chat settings (loaded when first opened): where chats are kept and the way to change it, the
 * person's own instructions, their shared links, and "Delete my chats from the server".
 */
export default function HistorySettingsDialog({ history, serverHistory, persisted, titleOf, onClose }: HistorySettingsDialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const { place } = history;
  return (
    <ModalDialog
      dialogRef={dialogRef}
      restoreFocus
      data-testid="chat-settings-dialog"
      aria-labelledby="chat-settings-title"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === dialogRef.current) onClose();
      }}
      className="mx-auto mt-[6vh] mb-auto max-h-[88dvh] w-[min(34rem,calc(100vw-1.5rem))] overflow-y-auto rounded-2xl border border-border bg-card p-5 text-foreground shadow-xl backdrop:bg-black/40"
    >
      <div className="flex items-center justify-between">
        <h2 id="chat-settings-title" className="text-base font-semibold">
          Chat settings
        </h2>
        <button type="button" onClick={onClose} className={`${ghostButton} h-8`}>
          Close
        </button>
      </div>
      <div className="mt-3 flex flex-col gap-5">
        <section className="flex flex-col gap-2" aria-labelledby="where-heading">
          <h3 id="where-heading" className="text-sm font-semibold">
            Where your chats are kept
          </h3>
          <p data-testid="history-place" data-place={place} className="text-[13px] leading-5 text-muted-foreground">
            {whereChatsAre(place)}{" "}
            {place === "server" && "This browser keeps a copy too, for search and for when you are offline."}
          </p>
          {place === "server" && (
            <button type="button" data-testid="history-keep-here-setting" onClick={() => history.choosePlace("device")} className={`${secondaryButton} h-9 self-start`}>
              Keep chats on this device only
            </button>
          )}
          {place === "device" && (
            <button type="button" data-testid="history-keep-on-server" onClick={() => history.choosePlace("server")} className={`${secondaryButton} h-9 self-start`}>
              Keep chats on the server again
            </button>
          )}
          <p data-testid="storage-persisted" data-persisted={persisted === null ? undefined : String(persisted)} className="text-[13px] leading-5 text-muted-foreground">
            {persisted
              ? "This browser keeps its copy even when space runs low."
              : "This browser may clear its copy when space runs low (it did not agree to keep it)."}
          </p>
        </section>
        {place === "server" && <InstructionsSection text={history.instructions.text} save={history.saveInstructions} />}
        {place === "server" && <SharesSection api={history.api} titleOf={titleOf} />}
        {serverHistory && (
          <DeleteHistorySection
            syncing={place === "server"}
            deleteEverything={async () => {
              const deleted = await history.api.deleteEverything();
              await history.syncNow();
              return deleted;
            }}
          />
        )}
      </div>
    </ModalDialog>
  );
}
